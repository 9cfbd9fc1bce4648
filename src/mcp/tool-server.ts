import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { errorObject, ToolError } from '../core/errors.js';
import type { Runtime } from '../app/runtime.js';
import type { ProxyHub } from '../proxy/hub.js';
import { SessionState } from '../tool/context.js';

export interface ToolServerOptions {
  /** Built on first use, so that answering `initialize` needs neither the config nor any upstream. */
  hub: () => Promise<ProxyHub>;
  runtime: Runtime;
}

/**
 * A JSON-RPC error for the SDK to send. Not McpError: its message gains an "MCP error N:" prefix on
 * the wire, which the client then prefixes again.
 */
function protocolError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, data });
}

/** The spec's code for an unknown resource URI. */
const RESOURCE_NOT_FOUND = -32002;

/** prompts/get and resources/read report failures as JSON-RPC errors; NOT_FOUND gets the code the spec names. */
async function asProtocolError<T>(run: () => Promise<T>, notFoundCode: number): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof McpError || typeof (error as { code?: unknown }).code === 'number') throw error;
    const published = errorObject(error);
    const code = error instanceof ToolError && error.code === 'NOT_FOUND' ? notFoundCode : ErrorCode.InternalError;
    throw protocolError(code, published.message, published);
  }
}

const INSTRUCTIONS =
  'mcpkit tools, and the tools of the MCP servers it proxies. Every mcpkit tool returns JSON; a failed call has isError set and an error object with code, message and often a hint on what to do next.';

async function hubOrProtocolError(hub: () => Promise<ProxyHub>): Promise<ProxyHub> {
  try {
    return await hub();
  } catch (error) {
    const published = errorObject(error);
    throw protocolError(ErrorCode.InternalError, published.message, published);
  }
}

/** The MCP server plus the hub it resolved (for the hot path, once known). */
export function createToolServer({ hub, runtime }: ToolServerOptions): Server & { resolvedHub(): ProxyHub | undefined } {
  // One server per client connection, so one session: its state is this client's alone.
  const context = runtime.context({ session: new SessionState() });
  const server = new Server(
    { name: 'mcpkit', title: 'mcpkit', version: runtime.version() },
    {
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } },
      instructions: INSTRUCTIONS,
    },
  );
  let unsubscribe: (() => void)[] | undefined;
  let resolved: ProxyHub | undefined;
  const ready = async () => {
    const h = await hubOrProtocolError(hub);
    resolved = h;
    unsubscribe ??= [
      h.onListChanged(() => void server.sendToolListChanged().catch(() => undefined)),
      h.onPromptsChanged(() => void server.sendPromptListChanged().catch(() => undefined)),
      h.onResourcesChanged(() => void server.sendResourceListChanged().catch(() => undefined)),
    ];
    return h;
  };
  server.onclose = () => unsubscribe?.forEach((off) => off());
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await (await ready()).list() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const progressToken = request.params._meta?.progressToken;
    // Progress must reach the client before the result (after it, the client has dropped the token),
    // and sending a notification is asynchronous: the result waits for those in flight.
    const sending: Promise<void>[] = [];
    const progress =
      progressToken === undefined
        ? undefined
        : (update: { progress: number; total?: number; message?: string }) =>
            void sending.push(extra.sendNotification({ method: 'notifications/progress', params: { ...update, progressToken } }).catch(() => undefined));
    const outcome = await (await ready()).call(name, args, { ...context, signal: extra.signal, ...(progress ? { progress } : {}) });
    await Promise.all(sending);
    if (!outcome.found) {
      const hint = outcome.similar.length ? `Did you mean ${outcome.similar.join(', ')}?` : 'Call tools/list for the available tools.';
      // Spec: an unknown tool is a protocol error (-32602), not a tool result.
      throw protocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}. ${hint}`, { code: 'NOT_FOUND', tool: name, similar: outcome.similar });
    }
    return outcome.result;
  });
  // Prompts and resources of the upstream servers, filtered like their tools.
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: await (await ready()).passthrough.listPrompts() }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) =>
    asProtocolError(() => ready().then((h) => h.passthrough.getPrompt(request.params.name, request.params.arguments)), ErrorCode.InvalidParams),
  );
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await (await ready()).passthrough.listResources() }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: await (await ready()).passthrough.listResourceTemplates(),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) =>
    asProtocolError(() => ready().then((h) => h.passthrough.readResource(request.params.uri)), RESOURCE_NOT_FOUND),
  );
  server.onerror = (error) => context.logger.error(`MCP: ${error.message}`);
  return Object.assign(server, { resolvedHub: () => resolved });
}
