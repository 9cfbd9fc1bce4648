import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorObject, ToolError } from '../core/errors.js';
import { closestNames } from '../core/registry.js';
import { parseInput } from '../core/schema.js';
import type { AnyTool, ToolContext } from '../core/tool.js';
import type { ProxyHub } from '../proxy/hub.js';

export { toMcpTool } from '../core/mcp-tool.js';

export interface ToolServerOptions {
  /** Built on first use, so that answering `initialize` needs neither the config nor any upstream. */
  hub: () => Promise<ProxyHub>;
  context: ToolContext;
  version: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A result is both JSON text (for every client) and structuredContent (an object, so non-objects are wrapped). */
export function toCallResult(result: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(result ?? null) }],
    structuredContent: isPlainObject(result) ? result : { result },
  };
}

export function toErrorResult(error: unknown): CallToolResult {
  const published = errorObject(error);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: published }) }], structuredContent: { error: published } };
}

/** Runs one call of a local tool: validation and tool failures become `isError` results, never protocol failures or crashes. */
export async function callTool(tool: AnyTool, args: unknown, context: ToolContext): Promise<CallToolResult> {
  try {
    const input = parseInput(tool.name, tool.input, args);
    return toCallResult(await tool.run(input, context));
  } catch (error) {
    if (!(error instanceof ToolError)) context.logger.error(`${tool.name} failed: ${(error as Error)?.stack ?? String(error)}`);
    return toErrorResult(error);
  }
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
    const h = await ready();
    const entry = await h.entry(name);
    if (!entry) {
      const similar = closestNames(name, await h.names());
      const hint = similar.length ? `Did you mean ${similar.join(', ')}?` : 'Call tools/list for the available tools.';
      // Spec: an unknown tool is a protocol error (-32602), not a tool result.
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. ${hint}`, { code: 'NOT_FOUND', tool: name, similar });
    }
    const callContext = { ...context, signal: extra.signal };
    if (entry.kind === 'local') return callTool(entry.tool, args ?? {}, callContext);
    try {
      return await h.callUpstream(entry, args, extra.signal);
    } catch (error) {
      return toErrorResult(error);
    }
  });
  server.onerror = (error) => context.logger.error(`MCP: ${error.message}`);
  return server;
}
