import * as z from 'zod';
import { field, INPUT_HINT, ToolError, type ErrorCode } from './errors.js';

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

/** Input schemas made ahead of time (mcpkit's own tools: tools/index.ts), by the zod schema object they were made from. */
const made = new WeakMap<z.ZodType, JsonSchema>();

/** Gives `inputJsonSchema(schema)` as `json`, which was made from it by computedInputJsonSchema (a test holds the two equal). */
export function knownInputJsonSchema(schema: z.ZodType, json: JsonSchema): void {
  made.set(schema, json);
}

/**
 * JSON Schema of what a caller may send (`io: 'input'`: fields with defaults are optional), a copy
 * of its own each time (callers reword descriptions in it).
 */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  const known = made.get(schema);
  return known ? structuredClone(known) : computedInputJsonSchema(schema);
}

/**
 * inputJsonSchema by zod's toJSONSchema (~1 ms a tool). `$schema` is dropped: MCP fixes the
 * dialect, and it would only add tokens to every listing.
 */
export function computedInputJsonSchema(schema: z.ZodType): JsonSchema {
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

/** One thing wrong with a call's arguments; `path` is dotted (`entities.0.name`), `(root)` for the whole. */
export interface InputIssue {
  path: string;
  message: string;
}

export function issuesOf(error: z.ZodError): InputIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(root)', message: issue.message }));
}

/**
 * The error for arguments that do not fit a tool, mcpkit's own or an upstream's: every issue with
 * its path, the first segment written as a field reference so each front end can name it in its
 * own words. `code` lets a group keep the name its users know for it (arango: VALIDATION_ERROR).
 */
export function invalidArguments(tool: string, issues: readonly InputIssue[], code: ErrorCode = 'INVALID_INPUT'): ToolError {
  const summary = issues
    .map((i) => {
      if (i.path === '(root)') return `${i.message}`;
      const dot = i.path.indexOf('.');
      const head = dot < 0 ? i.path : i.path.slice(0, dot);
      return `${field(head)}${dot < 0 ? '' : i.path.slice(dot)}: ${i.message}`;
    })
    .join('; ');
  return new ToolError(code, `Invalid arguments for ${tool}: ${summary}`, { details: { tool, issues: [...issues] }, hint: INPUT_HINT });
}

export interface ParseOptions {
  /** The code for arguments that fail the schema; INVALID_INPUT unless the group keeps another name for it. */
  code?: ErrorCode;
  /** Fields whose problems have a code of their own (retrieve: `limit` -> LIMIT_INVALID). */
  fieldCodes?: Readonly<Record<string, ErrorCode>>;
}

/** Validates tool input; a failure lists every issue with its path (see invalidArguments). */
export function parseInput<S extends z.ZodType>(toolName: string, schema: S, raw: unknown, options: ParseOptions = {}): z.output<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error);
  const own = new Set(issues.map((i) => options.fieldCodes?.[i.path.split('.', 1)[0]!]));
  const code = own.size === 1 && [...own][0] !== undefined ? [...own][0]! : (options.code ?? 'INVALID_INPUT');
  throw invalidArguments(toolName, issues, code);
}
