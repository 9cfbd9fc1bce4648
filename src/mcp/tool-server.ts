import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorObject, ToolError } from '../core/errors.js';
import { closestNames, type ToolRegistry } from '../core/registry.js';
import { inputJsonSchema, parseInput } from '../core/schema.js';
import type { AnyTool, ToolContext } from '../core/tool.js';

export interface ToolServerOptions {
  registry: ToolRegistry;
  context: ToolContext;
  version: string;
}

/** MCP's wire shape of a tool; the published JSON Schema is derived from the same zod schema that validates calls. */
export function toMcpTool(tool: AnyTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputJsonSchema(tool.input) as Tool['inputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  };
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

/** Runs one call: validation and tool failures become `isError` results, never protocol failures or crashes. */
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
  'mcpkit tools. Every tool returns JSON; a failed call has isError set and an error object with code, message and often a hint on what to do next.';

export function createToolServer({ registry, context, version }: ToolServerOptions): Server {
  const server = new Server(
    { name: 'mcpkit', title: 'mcpkit', version },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
  );
  let listed: Tool[] | undefined; // built on first tools/list, not at start-up
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (listed ??= registry.tools.map(toMcpTool)) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const tool = registry.get(name);
    if (!tool) {
      const similar = closestNames(name, registry.tools.map((t) => t.name));
      const hint = similar.length ? `Did you mean ${similar.join(', ')}?` : 'Call tools/list for the available tools.';
      // Spec: an unknown tool is a protocol error (-32602), not a tool result.
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. ${hint}`, { code: 'NOT_FOUND', tool: name, similar });
    }
    return callTool(tool, args ?? {}, { ...context, signal: extra.signal });
  });
  server.onerror = (error) => context.logger.error(`MCP: ${error.message}`);
  return server;
}
