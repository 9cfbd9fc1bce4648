import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, RequestId, Transport } from '@modelcontextprotocol/server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { interceptIncoming } from '../../core/sdk-seams.js';
import type { CallParams, Dispatcher } from './dispatcher.js';
import { wireError } from './protocol-errors.js';

/**
 * tools/call taken off the wire of a 2025-11-25 connection, before the SDK's Protocol: the call's
 * JSON-RPC message goes to the dispatcher, whose answer is written back with the client's own id.
 * For a call the hub's hot path takes this saves the SDK's per-request work (its schemas, its
 * handler context); every other call runs here too, in the same one place. The 2025 codec leaves
 * a tools/call result as it is, so what is sent is what the SDK would send; a request whose shape
 * is wrong goes to the SDK, which refuses it in its own words.
 */

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A tools/call's params in the shape the dispatcher takes, or undefined for the SDK to refuse. */
export function callParamsOf(params: unknown): CallParams | undefined {
  if (!isObject(params) || typeof params.name !== 'string') return undefined;
  if (params.arguments !== undefined && !isObject(params.arguments)) return undefined;
  if (params._meta !== undefined && !isObject(params._meta)) return undefined;
  return params as unknown as CallParams;
}

/**
 * Puts the dispatcher in front of the SDK server on one transport (stdio, a 2025 HTTP session):
 * `dispatcher` gives the connection's once its era is known to be 2025-11-25 (undefined: the SDK
 * has everything, as a 2026-07-28 connection's requests carry an envelope it owns).
 */
export function takeToolCalls(transport: Transport, dispatcher: () => Dispatcher | undefined, session: () => string | undefined = () => undefined): void {
  const running = new Map<RequestId, AbortController>();
  const send = (message: JSONRPCMessage, related: RequestId) => void transport.send(message, { relatedRequestId: related }).catch(() => undefined);
  interceptIncoming(transport, (message, extra, sdk) => {
    const m = message as { id?: RequestId; method?: string; params?: unknown };
    const taker = m.method === 'tools/call' && m.id !== undefined ? dispatcher() : undefined;
    const params = taker && callParamsOf(m.params);
    if (taker && params) {
      const id = m.id!;
      const controller = new AbortController();
      running.set(id, controller);
      const downstream = taker.downstream;
      const call = taker.call(params, {
        id,
        session: session(),
        signal: controller.signal,
        notify: (notification) => downstream.notify(notification, id),
        elicit: (form) => downstream.request('elicitation/create', form, id),
        relay: (progress) => send(progress, id),
        send: (result) => send({ jsonrpc: '2.0', id, result } as JSONRPCMessage, id),
      });
      void call.then(
        () => running.delete(id),
        (error: unknown) => {
          running.delete(id);
          if (!controller.signal.aborted) send({ jsonrpc: '2.0', id, error: wireError(error) } as JSONRPCMessage, id);
        },
      );
      return;
    }
    if (m.method === 'notifications/cancelled') {
      const id = (m.params as { requestId?: RequestId } | undefined)?.requestId;
      const controller = id === undefined ? undefined : running.get(id);
      if (controller) {
        running.delete(id!);
        return controller.abort();
      }
    }
    sdk?.(message, extra);
  });
  // The connection's end cancels what it still runs, as the SDK's Protocol does for its own requests.
  const closed = transport.onclose;
  transport.onclose = () => {
    for (const controller of running.values()) controller.abort();
    running.clear();
    closed?.();
  };
}

/** The signal of a call answered in one JSON body: the carrier cancels through RequestContext.cancel, never through this. */
const NEVER_ABORTED = new AbortController().signal;

/** How the HTTP hot path writes: an answer (the bytes of its result returned), and an error. */
export interface OneBodyWriter {
  answer(res: ServerResponse, id: RequestId, result: Record<string, unknown>): number;
  error(res: ServerResponse, id: RequestId, error: unknown): void;
}

/**
 * The HTTP hot path: a single tools/call in a live 2025 session that the dispatcher can answer
 * without a stream (the hub's hot path takes it, no progress asked, no server may ask the client
 * anything) is answered with one application/json response, a form the spec lets servers choose
 * for any request, skipping the SDK transport's per-request stream machinery. Anything else
 * returns false and goes to the SDK transport (whose messages this wire takes as above). No
 * AbortController per call: the response's own 'close' tells the dispatcher the client went away.
 */
export function answerCallAsJson(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  dispatcher: Dispatcher | undefined,
  write: OneBodyWriter,
  session?: string,
): boolean {
  if (!dispatcher?.hub) return false;
  const m = body as { jsonrpc?: string; id?: string | number; method?: string; params?: unknown };
  if (!isObject(m) || m.method !== 'tools/call' || m.id === undefined || m.jsonrpc !== '2.0') return false;
  // The same checks as the SDK transport's ordinary path: a request it would refuse (406, 415) goes there to be refused.
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
  if (!(req.headers['content-type'] ?? '').includes('application/json')) return false;
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false; // the SDK answers with the proper error
  const params = callParamsOf(m.params);
  if (!params) return false;
  // One JSON body: only a call the hot path takes (one that may need a stream goes to the SDK transport).
  const plan = dispatcher.plan(params, { oneBody: true });
  if (!plan.fast) return false;
  const id = m.id;
  const cancel: { gone?: boolean; run?: () => void } = {};
  res.on('close', () => {
    if (res.writableEnded) return;
    cancel.gone = true; // the client went away: a call that waits for its limits' place is cancelled when it would start
    cancel.run?.();
  });
  const notify = () => Promise.resolve();
  dispatcher
    .call(params, { id, session, signal: NEVER_ABORTED, cancel, notify, send: (result) => write.answer(res, id, result) }, plan)
    .catch((error: unknown) => {
      if (!res.headersSent && !cancel.gone) write.error(res, id, error);
    });
  return true;
}
