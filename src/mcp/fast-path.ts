import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { Transport, JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { interceptIncoming } from '../core/sdk-seams.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxyHub } from '../proxy/hub.js';
import type { CallObserver } from '../audit/auditor.js';
import type { ToolAccess } from '../tool/context.js';
import { auditedCall } from './call-record.js';

/** Who a connection's calls come from, for the audit log. */
export interface FastPathCaller {
  /** Who calls and what it may call (serve.clients), read per call so a reload applies. */
  access: () => ToolAccess | undefined;
  observer?: CallObserver | undefined;
  session: () => string | undefined;
  client: () => { name?: unknown; version?: unknown } | undefined;
}

/** The bytes of a JSON-RPC response around its result: `{"jsonrpc":"2.0","id":ID,"result":` and `}`. */
const envelopeBytes = (id: RequestId) => Buffer.byteLength(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":}`);

/**
 * Wraps a forwarded call's reply so that the audit log gets its line (when there is a log), made
 * by the one maker of records (call-record.ts) as the SDK server's path makes its own. A reply that
 * returns the bytes it sent saves the log serializing the result again to count them.
 */
function auditedReply<R>(
  caller: FastPathCaller | undefined,
  hub: ProxyHub,
  id: RequestId,
  params: Record<string, unknown>,
  reply: (result: R) => number | void,
) {
  const observer = caller?.observer;
  if (!observer) return reply;
  const started = performance.now();
  const access = caller.access();
  return (result: R) => {
    const sent = reply(result);
    const name = String(params.name);
    observer.record(
      auditedCall({
        method: 'tools/call',
        name,
        session: caller.session(),
        request: id,
        access,
        client: caller.client(),
        view: hub.view.name,
        answered: { entry: hub.knownEntry(name) },
        started,
        args: params.arguments ?? {},
        ended: { result, resultBytes: typeof sent === 'number' ? sent - envelopeBytes(id) : undefined },
      }),
    );
  };
}

/**
 * Puts the hub's hot path in front of the SDK server on one transport: a tools/call that the hub
 * can forward is answered here, from the upstream's response, with the client's own request id;
 * everything else (and every call the hub declines) goes to the SDK server unchanged. Cancellation
 * and progress for forwarded calls are relayed. Responses keep the JSON-RPC shape and ids the
 * client expects, so any MCP client sees the same protocol as on the ordinary path.
 */
export function installFastPath(transport: Transport, hub: () => ProxyHub | undefined, caller?: FastPathCaller): void {
  const inFlight = new Map<RequestId, () => void>();
  interceptIncoming(transport, (message, extra, sdk) => {
    const m = message as { id?: RequestId; method?: string; params?: Record<string, unknown> };
    if (m.method === 'tools/call' && m.id !== undefined) {
      const id = m.id;
      const ready = hub();
      const send = (out: JSONRPCMessage) => void transport.send(out, { relatedRequestId: id }).catch(() => undefined);
      const handled = ready?.tryFastCall(
        m.params ?? {},
        auditedReply(caller, ready, id, m.params ?? {}, (result) => {
          inFlight.delete(id);
          send({ jsonrpc: '2.0', id, result });
        }),
        (progress) => send(progress),
        id,
        caller?.access(),
      );
      if (handled) {
        inFlight.set(id, handled.cancel);
        return;
      }
    }
    if (m.method === 'notifications/cancelled') {
      const cancel = inFlight.get((m.params as { requestId?: RequestId } | undefined)?.requestId as RequestId);
      if (cancel) {
        inFlight.delete((m.params as { requestId: RequestId }).requestId);
        return cancel();
      }
    }
    sdk?.(message, extra);
  });
}

/**
 * The HTTP hot path: a single tools/call in a live session, with no progress requested, that the
 * hub can forward, is answered with one application/json response (a form the spec lets servers
 * choose for any request), skipping the SDK transport's per-request stream machinery. Anything
 * else, or a call the hub declines, returns false and goes to the SDK transport.
 */
export function tryFastHttpCall(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  hub: ProxyHub | undefined,
  sendJson: (res: ServerResponse, status: number, body: unknown) => number,
  caller?: FastPathCaller,
): boolean {
  // A client's own connections may ask it things during the call: those need the call's stream.
  if (!hub || hub.relaysRequests) return false;
  const m = body as {
    jsonrpc?: string;
    id?: string | number;
    method?: string;
    params?: { name?: unknown; arguments?: unknown; _meta?: { progressToken?: unknown } };
  };
  if (!m || typeof m !== 'object' || Array.isArray(m) || m.method !== 'tools/call' || m.id === undefined || m.jsonrpc !== '2.0') return false;
  if (m.params?._meta?.progressToken !== undefined) return false; // progress needs the SSE stream
  // The same checks as the SDK transport's ordinary path: a request it would refuse (406, 415) goes there to be refused.
  const accept = String(req.headers.accept ?? '');
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
  if (!String(req.headers['content-type'] ?? '').includes('application/json')) return false;
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false; // the SDK answers with the proper error
  const id = m.id;
  const handled = hub.tryFastCall(
    m.params ?? {},
    auditedReply(caller, hub, id, m.params ?? {}, (result) => sendJson(res, 200, { jsonrpc: '2.0', id, result })),
    () => {},
    undefined,
    caller?.access(),
  );
  if (!handled) return false;
  res.once('close', () => {
    if (!res.writableEnded) handled.cancel(); // the client went away
  });
  return true;
}
