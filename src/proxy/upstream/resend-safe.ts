/**
 * Which requests to an HTTP upstream may be sent a second time after a failure that leaves unknown
 * whether the server read the first (./closed-before-answer.ts): those whose second run changes
 * nothing. A closed list, so that a method not named here (tools/call, a subscription, a task, an
 * answer to the server's own request) is never sent twice. Pure; it runs on the failure path only.
 */

/** JSON-RPC requests that read or negotiate, and change nothing on the server when run twice. */
const READS = new Set(['initialize', 'server/discover', 'ping', 'resources/read', 'prompts/get', 'completion/complete', 'logging/setLevel']);

/** A JSON-RPC message that may be run twice: a read above, any listing (`.../list`), or a notification. */
function sideEffectFreeMessage(message: unknown): boolean {
  if (!message || typeof message !== 'object' || Array.isArray(message)) return false;
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (typeof method !== 'string') return false; // an answer to the server's request, or not JSON-RPC
  if (id === undefined) return method.startsWith('notifications/');
  return READS.has(method) || method.endsWith('/list');
}

/** The body as text, for the kinds that can be sent again as they are (the SDK sends JSON text). */
function bodyText(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder('utf-8', { fatal: true }).decode(body);
  return undefined;
}

/**
 * True for a request that may be sent again: a GET (the session's event stream) or DELETE (the
 * session's end) without a body, or a POST whose JSON-RPC message, or every message of a batch, is
 * side-effect free. Anything else (a body that does not parse, a form, a stream) is not.
 */
export function resendSafe(method: string | undefined, body: unknown): boolean {
  const verb = (method ?? 'GET').toUpperCase();
  if (verb === 'GET' || verb === 'DELETE') return body === undefined || body === null;
  if (verb !== 'POST') return false;
  let parsed: unknown;
  try {
    const text = bodyText(body);
    if (text === undefined) return false;
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  if (Array.isArray(parsed)) return parsed.length > 0 && parsed.every(sideEffectFreeMessage);
  return sideEffectFreeMessage(parsed);
}
