/**
 * The one error type handlers throw. Each front end maps it once: the CLI to an
 * exit code and `Error [CODE]: message`, MCP to an `isError` result.
 */
export const ERROR_CODES = [
  'INVALID_INPUT',
  'NOT_FOUND',
  'CONFLICT',
  'CONFIG_INVALID',
  'PATH_OUTSIDE_ROOT',
  'UNAVAILABLE',
  'AUTH_FAILED',
  'FORBIDDEN',
  'RATE_LIMITED',
  'TIMEOUT',
  'UPSTREAM_ERROR',
  'INTERNAL',
] as const;

/** Well-known codes plus group-specific ones (e.g. the retrieval seed's `QUERY_EMPTY`). */
export type ErrorCode = (typeof ERROR_CODES)[number] | (string & {});

export interface ToolErrorOptions {
  details?: Record<string, unknown>;
  hint?: string;
  cause?: unknown;
}

export interface ErrorObject {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  hint?: string;
}

export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly hint?: string;

  constructor(code: ErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolError';
    this.code = code;
    this.details = options.details;
    this.hint = options.hint;
  }

  toJSON(): ErrorObject {
    return errorObject(this);
  }
}

export function isToolError(value: unknown): value is ToolError {
  return value instanceof ToolError;
}

/** Anything thrown, as the error object both front ends publish. */
export function errorObject(error: unknown): ErrorObject {
  if (error instanceof ToolError) {
    const out: ErrorObject = { code: error.code, message: error.message };
    if (error.details !== undefined) out.details = error.details;
    if (error.hint !== undefined) out.hint = error.hint;
    return out;
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message: `Unexpected error: ${message}`, hint: 'This is a bug in mcpkit; please report it with the command you ran.' };
}

/** Usage mistakes exit 2 like oclif's own parse errors; everything else a tool reports exits 1. */
export function exitCodeFor(error: ErrorObject): number {
  return error.code === 'INVALID_INPUT' || error.code === 'VALIDATION_ERROR' ? 2 : 1;
}
