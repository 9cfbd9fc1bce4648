import { MAX_NESTING, nestedDeeperThan, nestingRefusal } from '../../core/nesting.js';
import { toErrorResult } from '../../tool/mcp-shape.js';

/**
 * A 2026-07-28 request nested past core/nesting.ts's limit, answered before the SDK's modern leg
 * sees it: that leg walks a request's body recursively before any of mcpkit's code does, so the
 * call chain's own check (./call-chain.ts) would come too late. A tools/call gets the same
 * INVALID_INPUT result the chain gives; any other request, JSON-RPC's invalid params. Undefined
 * for a request within the limit. Pure.
 */
export function deepModernAnswer(body: unknown): { status: number; answer: Record<string, unknown> } | undefined {
  const message = body as { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown; _meta?: unknown } } | undefined;
  if (!message || typeof message !== 'object') return undefined;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  if (message.method === 'tools/call') {
    const refusal = nestingRefusal(String(message.params?.name), message.params?.arguments, message.params?._meta);
    if (refusal) return { status: 200, answer: { jsonrpc: '2.0', id, result: toErrorResult(refusal) } };
  }
  // The message, its params, and a field of them: within the limit, whatever the method.
  if (!nestedDeeperThan(message, MAX_NESTING + 2)) return undefined;
  const error = { code: -32602, message: `The request's params are nested deeper than ${MAX_NESTING} levels; send flatter data.` };
  return { status: 400, answer: { jsonrpc: '2.0', id, error } };
}
