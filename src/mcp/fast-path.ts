import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { CallToolResult, Transport, JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { interceptIncoming } from '../core/sdk-seams.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxyHub } from '../proxy/hub.js';
import { beginCall, REVOKED, type CallLinks } from './call-chain.js';
import { toErrorResult } from '../tool/mcp-shape.js';

/** Who a connection's calls come from, and what their steps use (./call-chain.ts). */
export interface FastPathCaller {
  links: CallLinks;
  session: () => string | undefined;
  client: () => { name?: unknown; version?: unknown } | undefined;
}

/** The bytes of a JSON-RPC response around its result: `{"jsonrpc":"2.0","id":ID,"result":` and `}`. */
const envelopeBytes = (id: RequestId) => Buffer.byteLength(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":}`);

/** How a call the client cancelled ends in the audit log: it got no answer. */
const CANCELLED = Object.freeze({ code: 'CANCELLED', message: 'The client cancelled the request; it was not answered.' });

/**
 * A call the hub takes on its hot path, run through the call's steps (./call-chain.ts) as the SDK
 * server's path runs its own: refused by the client's limits, or forwarded and then ended with its
 * result. `send` answers the client and may return the bytes it sent, which saves the audit log
 * serializing the result again to count them. Undefined when the hub does not take the call.
 */
function runFast(
  hub: ProxyHub,
  caller: FastPathCaller | undefined,
  id: RequestId,
  params: { name?: unknown; arguments?: unknown; _meta?: Record<string, unknown> },
  send: (result: CallToolResult) => number | void,
  relay?: { progress: (message: JSONRPCMessage) => void; related: RequestId },
): (() => void) | undefined {
  const links = caller?.links ?? {};
  const access = links.access?.();
  const fast = hub.fastCall(params, access);
  if (!fast) return undefined;
  const begun = beginCall(links, {
    method: 'tools/call',
    access, // as read to decide: one identity for the whole call
    name: String(params.name),
    args: params.arguments ?? {},
    request: id,
    session: caller?.session(),
    client: () => caller?.client(),
    view: () => hub.view.name,
    traceContext: params._meta,
    // Progress goes to the client as the upstream sent it (the forwarder puts back the client's token).
  });
  const answered = { entry: fast.entry };
  const reply = (result: CallToolResult) => {
    const sent = send(result);
    begun.end({ result, resultBytes: typeof sent === 'number' ? sent - envelopeBytes(id) : undefined }, answered);
  };
  if (begun.refused) {
    reply(begun.refused);
    return () => {};
  }
  const cancel = fast.run({ reply, progress: relay?.progress, related: relay?.related, trace: begun.trace });
  // A revoked credential's call is cancelled upstream and answered with why, at once.
  begun.revoked?.addEventListener('abort', () => (cancel(), reply(toErrorResult(REVOKED))), { once: true });
  return () => {
    cancel();
    begun.end({ error: CANCELLED }, answered);
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
      const cancel =
        ready &&
        runFast(
          ready,
          caller,
          id,
          m.params ?? {},
          (result) => {
            inFlight.delete(id);
            send({ jsonrpc: '2.0', id, result });
          },
          { progress: send, related: id },
        );
      if (cancel) {
        inFlight.set(id, cancel);
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
  const cancel = runFast(hub, caller, id, (m.params ?? {}) as Record<string, unknown>, (result) => sendJson(res, 200, { jsonrpc: '2.0', id, result }));
  if (!cancel) return false;
  res.once('close', () => {
    if (!res.writableEnded) cancel(); // the client went away
  });
  return true;
}
