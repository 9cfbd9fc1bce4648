import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorObject } from '../core/errors.js';
import type { ToolContext } from '../core/tool.js';
import type { ProxyHub } from '../proxy/hub.js';

export { toCallResult, toErrorResult, toMcpTool } from '../core/mcp-tool.js';

export interface ToolServerOptions {
  /** Built on first use, so that answering `initialize` needs neither the config nor any upstream. */
  hub: () => Promise<ProxyHub>;
  context: ToolContext;
  version: string;
}

const INSTRUCTIONS =
  'mcpkit tools, and the tools of the MCP servers it proxies. Every mcpkit tool returns JSON; a failed call has isError set and an error object with code, message and often a hint on what to do next.';

async function hubOrProtocolError(hub: () => Promise<ProxyHub>): Promise<ProxyHub> {
  try {
    return await hub();
  } catch (error) {
    const published = errorObject(error);
    throw new McpError(ErrorCode.InternalError, published.message, published);
  }
}

export function createToolServer({ hub, context, version }: ToolServerOptions): Server {
  const server = new Server(
    { name: 'mcpkit', title: 'mcpkit', version },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
  );
  let subscribed = false;
  const ready = async () => {
    const h = await hubOrProtocolError(hub);
    if (!subscribed) {
      subscribed = true;
      h.onListChanged(() => void server.sendToolListChanged().catch(() => undefined));
    }
    return h;
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await (await ready()).list() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const outcome = await (await ready()).call(name, args, { ...context, signal: extra.signal });
    if (!outcome.found) {
      const hint = outcome.similar.length ? `Did you mean ${outcome.similar.join(', ')}?` : 'Call tools/list for the available tools.';
      // Spec: an unknown tool is a protocol error (-32602), not a tool result.
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. ${hint}`, { code: 'NOT_FOUND', tool: name, similar: outcome.similar });
    }
    return outcome.result;
  });
  server.onerror = (error) => context.logger.error(`MCP: ${error.message}`);
  return server;
}
