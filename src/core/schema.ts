import * as z from 'zod';
import { ToolError } from './errors.js';

/** A JSON Schema object as published in MCP `tools/list`. */
export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
  [key: string]: unknown;
};

/**
 * JSON Schema of what a caller may send (`io: 'input'`: fields with defaults are optional).
 * `$schema` is dropped: MCP fixes the dialect, and it would only add tokens to every listing.
 */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return dropSafeIntegerBounds(json);
}

/** zod's `int()` publishes ±2^53-1 as bounds; they say nothing and cost tokens in every listing. */
function dropSafeIntegerBounds(node: JsonSchema): JsonSchema {
  if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
  if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) value.forEach((v) => isSchema(v) && dropSafeIntegerBounds(v));
    else if (isSchema(value)) dropSafeIntegerBounds(value);
  }
  return node;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface InputIssue {
  path: string;
  message: string;
}

export function issuesOf(error: z.ZodError): InputIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(root)', message: issue.message }));
}

/** Validates tool input; a failure is an `INVALID_INPUT` ToolError listing every issue with its path. */
export function parseInput<S extends z.ZodType>(toolName: string, schema: S, raw: unknown, code = 'INVALID_INPUT'): z.output<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error);
  const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  throw new ToolError(code, `Invalid arguments for ${toolName}: ${summary}`, {
    details: { tool: toolName, issues },
    hint: `Run "mcpkit tools --json" or read the tool's input schema for the accepted arguments.`,
  });
}
