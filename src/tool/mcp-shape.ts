import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import { errorObject, ToolError } from '../core/errors.js';
import { inputJsonSchema, parseInput } from '../core/schema.js';
import { literalValues } from '../config/secrets/interpolate.js';
import { InputRequiredAnswer, type ToolContext } from './context.js';
import type { AnyTool } from './define.js';

const published = new WeakMap<AnyTool, Tool>();

/** MCP's wire shape of a tool; the JSON Schema comes from the same zod schema that validates calls. Built once per tool. */
export function toMcpTool(tool: AnyTool): Tool {
  let out = published.get(tool);
  if (!out) {
    const inputSchema = inputJsonSchema(tool.input) as Tool['inputSchema'];
    const say = inAgentWords(tool, Object.keys(inputSchema.properties ?? {}));
    for (const property of Object.values(inputSchema.properties ?? {}) as { description?: string }[]) {
      if (typeof property?.description === 'string') property.description = say(property.description);
    }
    out = {
      name: tool.name,
      title: tool.title,
      description: say(tool.description),
      inputSchema,
      // Tool.title is where 2025-06-18 and later clients read it; annotations.title would repeat it in every listing.
      annotations: { ...tool.annotations },
    };
    published.set(tool, out);
  }
  return out;
}

/**
 * A description names input fields as a terminal user types them (`--regex`, `--all`); an agent
 * gives them as arguments, so over MCP each flag of the tool's own fields reads as the field
 * (`"regex"`), as error messages name them there. Flags of other commands stay as written. Pure.
 */
export function inAgentWords(tool: Pick<AnyTool, 'command'>, fields: readonly string[]): (text: string) => string {
  const byFlag = new Map(fields.map((field) => [tool.command.flagNames?.[field] ?? field.replaceAll('_', '-'), field]));
  return (text) => text.replace(/(?<![\w-])--([a-z][a-z0-9-]*)/g, (word, flag: string) => (byFlag.has(flag) ? `"${byFlag.get(flag)}"` : word));
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
  const obj = errorObject(error);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: obj }) }], structuredContent: { error: obj } };
}

/** Validates a call's arguments with the tool's own schema and codes. */
export function parseToolInput<T extends AnyTool>(tool: T, raw: unknown): z.output<T['input']> {
  return parseInput(tool.name, tool.input as T['input'], raw, { code: tool.invalidInputCode, fieldCodes: tool.fieldCodes });
}

/**
 * What an agent gives a tool that writes the config or starts processes is data: every `${` in it
 * is written `$${`, so nothing it writes is ever expanded from mcpkit's environment (a server URL
 * or header naming `${GH_TOKEN}` stays that text). The one place every MCP call of such a tool
 * crosses (composite steps too); a person at a terminal writes placeholders on purpose.
 */
export function agentInput<T>(tool: AnyTool, input: T, context: Pick<ToolContext, 'surface'>): T {
  return context.surface === 'mcp' && tool.hostAccess !== undefined ? literalValues(input) : input;
}

/** Runs one of mcpkit's own tools for MCP: validation and tool failures become `isError` results, never crashes. */
export async function runLocalTool(tool: AnyTool, args: unknown, context: ToolContext): Promise<CallToolResult> {
  try {
    return toCallResult(await tool.run(agentInput(tool, parseToolInput(tool, args), context), context));
  } catch (error) {
    if (error instanceof InputRequiredAnswer) return error.result as CallToolResult;
    if (!(error instanceof ToolError)) context.logger.error(`${tool.name} failed: ${(error as Error)?.stack ?? String(error)}`);
    return toErrorResult(error);
  }
}
