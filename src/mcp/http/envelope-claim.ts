import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a POST body claims the 2026-07-28 envelope in a way the SDK's classifyInboundRequest
 * never calls legacy, read without its schemas: one JSON-RPC message (not a batch) that is not
 * posted as an answer (no `result`, no `error`) and not `initialize`, whose `params._meta` names
 * the protocol-version key. The SDK's rules make every such body modern, or a refusal that the
 * modern leg answers (a bad envelope, headers that disagree, a shape that is no JSON-RPC
 * message), so serve routes it to that leg and the SDK's handler classifies it, once. False says
 * nothing: the SDK's classification decides (modern-http.ts isModernPost).
 */
export function claimsModernEnvelope(body: unknown): boolean {
  if (!isPlainObject(body) || 'result' in body || 'error' in body || body.method === 'initialize') return false;
  const params = body.params;
  return isPlainObject(params) && isPlainObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta;
}
