import { errorObject, isErrorCode, type ErrorObject } from '../core/errors.js';
import type { CallFailure } from './protocol.js';

/** What a script's tool call resolves to, or the error it rejects with. */
export type ScriptAnswer = { ok: true; value: unknown } | { ok: false; error: CallFailure };

interface ToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * A tool's result as a script sees it: its structuredContent when it gives one, else its text
 * (the text parts, joined); a result with isError is a failure, with mcpkit's error object where
 * the result carries one, else UPSTREAM_ERROR in the tool's own words. Pure.
 */
export function scriptAnswerOf(tool: string, result: ToolResult): ScriptAnswer {
  const text = Array.isArray(result.content)
    ? (result.content as { type?: unknown; text?: unknown }[])
        .map((part) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : part?.type ? `[${String(part.type)}]` : ''))
        .join('\n')
    : '';
  if (result.isError) {
    const own = (result.structuredContent as { error?: ErrorObject } | undefined)?.error;
    if (own && isErrorCode(own.code))
      return {
        ok: false,
        error: { code: own.code, message: own.message, ...(own.details ? { details: own.details } : {}), ...(own.hint ? { hint: own.hint } : {}) },
      };
    return { ok: false, error: { code: 'UPSTREAM_ERROR', message: `${tool} failed: ${text || 'no details'}` } };
  }
  return { ok: true, value: result.structuredContent !== undefined ? result.structuredContent : text };
}

/**
 * A call that threw, as a script's Error sees it: mcpkit's error object; a JSON-RPC error that
 * carries one in its data (an unknown tool) gives that one. Pure.
 */
export function failureOf(error: unknown): CallFailure {
  const data = (error as { data?: { code?: unknown } } | undefined)?.data;
  if (data && isErrorCode(data.code)) {
    const { code, ...details } = data as Record<string, unknown>;
    return { code: code as string, message: (error as Error).message, ...(Object.keys(details).length ? { details } : {}) };
  }
  const published = errorObject(error);
  return {
    code: published.code,
    message: published.message,
    ...(published.details ? { details: published.details } : {}),
    ...(published.hint ? { hint: published.hint } : {}),
  };
}
