import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import { errorObject, ToolError } from '../../core/errors.js';

/**
 * A JSON-RPC error for the carrier to send. Not McpError: its message gains an "MCP error N:"
 * prefix on the wire, which the client then prefixes again.
 */
export function protocolError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, data });
}

/**
 * An unknown resource URI: -32602 with the URI in `data`, which the 2026-07-28 spec names and the
 * SDK sends in both eras (2025-11-25 said -32002; clients are told to accept either).
 */
export const resourceNotFound = (uri: string) => (message: string, published: object) =>
  Object.assign(new ResourceNotFoundError(uri, message), { data: { ...published, uri } });

export const invalidParams = (message: string, published: object) => protocolError(ProtocolErrorCode.InvalidParams, message, published);

/** prompts/get and resources/read report failures as JSON-RPC errors; NOT_FOUND gets the code the spec names. */
export async function asProtocolError<T>(run: () => Promise<T>, notFound: (message: string, published: object) => Error): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ProtocolError || typeof (error as { code?: unknown }).code === 'number') throw error;
    const published = errorObject(error);
    if (error instanceof ToolError && error.code === 'NOT_FOUND') throw notFound(published.message, published);
    throw protocolError(ProtocolErrorCode.InternalError, published.message, published);
  }
}

/** An unknown tool is a protocol error (-32602), not a tool result (spec). */
export function unknownTool(name: string, similar: readonly string[]): Error {
  const hint = similar.length ? `Did you mean ${similar.join(', ')}?` : 'Call tools/list for the available tools.';
  return protocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}. ${hint}`, { code: 'NOT_FOUND', tool: name, similar });
}

/**
 * The JSON-RPC error object a thrown error is answered with, as the SDK's Protocol makes it: its
 * numeric code, or -32603 (a 2025-11-25 answer says -32602 where the 2026 code -32002 was thrown).
 */
export function wireError(error: unknown): { code: number; message: string; data?: unknown } {
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(e?.code) ? (e.code as number) : ProtocolErrorCode.InternalError;
  return {
    code: code === -32002 ? ProtocolErrorCode.InvalidParams : code,
    message: typeof e?.message === 'string' ? e.message : 'Internal error',
    ...(e?.data !== undefined ? { data: e.data } : {}),
  };
}
