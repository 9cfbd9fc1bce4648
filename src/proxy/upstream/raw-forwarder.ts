import type { Transport, JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { interceptIncoming } from '../../core/sdk-seams.js';
import { ProgressTimeout } from './progress-timeout.js';

/** How a forwarded request ended: the upstream's result, or a JSON-RPC error (ours or its). */
export type ForwardOutcome =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; /** the ceiling, not the idle wait */ total?: boolean }; cause?: unknown };

export interface ForwardOptions {
  /** Fails the request when the server sends nothing for this long; progress restarts it. */
  timeoutMs: number;
  /** Fails it this long after it was sent, progress or not (default: timeoutMs, no restart). */
  maxTotalMs?: number;
  done(outcome: ForwardOutcome): void;
  /** notifications/progress for this request, with the caller's own progress token put back. */
  progress?(message: JSONRPCMessage): void;
}

interface Pending {
  finish(outcome: ForwardOutcome): void;
  /** Progress came: the idle timeout starts again (within the ceiling). */
  touch(): void;
  progress?: (message: JSONRPCMessage) => void;
  /** The token the caller chose; upstream the request carries our id as its token instead. */
  callerToken?: unknown;
}

/**
 * The proxy's hot path, and the one place that works below the SDK's Client: a request goes onto
 * the connected client transport as a JSON-RPC message under an id of ours, and its response is
 * taken off the transport before the SDK's Client sees it. This skips the Protocol layer's work
 * per message (schema parsing of request and result, an AbortController per call), which is most
 * of what a pass-through costs. Everything not ours goes on to the SDK unchanged.
 *
 * What this relies on in the SDK (test/proxy/upstream/raw-forwarder.test.ts checks each against the
 * version in the lockfile): `Client.connect` sets `transport.onmessage`, replacing it afterwards
 * sees every inbound message first, and `transport.send` takes a request we made up.
 *
 * Progress tokens are chosen by clients (SDK clients use their request id), so two clients'
 * tokens can be equal on one shared connection: upstream, each forwarded request carries our id
 * as its token, and progress is routed by it and handed back with the caller's token.
 */
export class RawForwarder {
  private transport?: Transport;
  private readonly pending = new Map<string, Pending>();
  /** Progress of calls made through the SDK client, by the token mcpkit gave them (tapProgress). */
  private readonly taps = new Map<string, (params: { progress: number; total?: number; message?: string }) => void>();
  private seq = 0;

  constructor(private readonly prefix = 'mcpkit') {}

  /**
   * Starts intercepting a newly connected transport (after the SDK Client connected over it).
   * `modern`: the connection speaks 2026-07-28, whose results carry `resultType`. One without it is
   * read as complete, as the conformance suite asks of clients (SEP-2322,
   * sep-2322-default-result-type-complete); the SDK would refuse it as invalid.
   */
  attach(transport: Transport, options: { modern?: boolean } = {}): void {
    this.transport = transport;
    const modern = options.modern === true;
    interceptIncoming(transport, (received, extra, sdk) => {
      const r = received as { method?: string; result?: Record<string, unknown> };
      const message =
        modern && r.method === undefined && r.result !== null && typeof r.result === 'object' && !('resultType' in r.result)
          ? ({ ...r, result: { ...r.result, resultType: 'complete' } } as unknown as typeof received)
          : received;
      const m = message as { jsonrpc: '2.0'; id?: RequestId; method?: string; params?: { progressToken?: unknown } };
      if (typeof m.id === 'string' && m.method === undefined) {
        const pending = this.pending.get(m.id);
        if (pending) return pending.finish(outcomeOf(message));
      }
      if (m.method === 'notifications/progress' && typeof m.params?.progressToken === 'string') {
        const pending = this.pending.get(m.params.progressToken);
        if (pending) {
          pending.touch();
          // Asked for by us alone (to keep the call alive): the client did not ask to hear it.
          if (pending.callerToken === undefined) return;
          if (pending.progress) return pending.progress({ ...m, params: { ...m.params, progressToken: pending.callerToken } } as JSONRPCMessage);
        }
        const tap = this.taps.get(m.params.progressToken);
        if (tap) {
          const { progressToken: _token, ...progress } = m.params as { progressToken: string; progress: number; total?: number; message?: string };
          return tap(progress);
        }
      }
      sdk?.(message, extra);
    });
  }

  /**
   * The progress of a call made through the SDK client, handed to `listener` as it arrives, in
   * the order the server sent it. The SDK client handles a notification a microtask later than a
   * response, so a last progress that arrives with the result was dropped (its handler already
   * gone); here it is taken before the SDK sees it. Returns the token to send and a function that
   * ends the tap.
   */
  tapProgress(listener: (params: { progress: number; total?: number; message?: string }) => void): { token: string; end(): void } {
    const token = `${this.prefix}-progress-${++this.seq}`;
    this.taps.set(token, listener);
    return { token, end: () => void this.taps.delete(token) };
  }

  /** The transport closed: nothing can be forwarded until the next attach. */
  detach(): void {
    this.transport = undefined;
  }

  get attached(): boolean {
    return this.transport !== undefined;
  }

  /** Requests in flight. */
  get size(): number {
    return this.pending.size;
  }

  /** Sends one request; `done` is called exactly once. Returns a function that cancels it (no `done` then). */
  forward(method: string, params: Record<string, unknown>, options: ForwardOptions): () => void {
    const transport = this.transport;
    const id = `${this.prefix}-${++this.seq}`;
    const meta = params._meta as { progressToken?: unknown } | undefined;
    const callerToken = meta?.progressToken;
    // Our id is the progress token upstream whether or not the client asked: progress keeps the call alive.
    const sent = { ...params, _meta: { ...meta, progressToken: id } };
    const finish = (outcome: ForwardOutcome) => {
      if (!this.pending.delete(id)) return;
      alive.stop();
      options.done(outcome);
    };
    // The same timeout as a call through the SDK client's (Upstream.call): idle, restarted by progress, within a ceiling.
    const alive = new ProgressTimeout(options.timeoutMs, options.maxTotalMs ?? options.timeoutMs, (which) => {
      this.cancelled(transport, id, 'timeout');
      finish({ error: alive.error(which) });
    });
    const touch = () => alive.touch();
    this.pending.set(id, { finish, touch, ...(options.progress ? { progress: options.progress } : {}), callerToken });
    if (!transport) finish({ error: { code: -32000, message: 'not connected' } });
    else
      transport
        .send({ jsonrpc: '2.0', id, method, params: sent })
        .catch((error: Error) => finish({ error: { code: -32000, message: error.message }, cause: error }));
    return () => {
      if (!this.pending.delete(id)) return;
      alive.stop();
      this.cancelled(transport, id, 'cancelled by the client');
    };
  }

  /** Ends every request in flight with an error (the connection went away). */
  failAll(reason: string): void {
    for (const pending of [...this.pending.values()]) pending.finish({ error: { code: -32000, message: reason } });
  }

  private cancelled(transport: Transport | undefined, requestId: string, reason: string): void {
    void transport?.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } }).catch(() => undefined);
  }
}

function outcomeOf(message: JSONRPCMessage): ForwardOutcome {
  const answer = message as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  if (answer.result) return { result: answer.result };
  return { error: answer.error ?? { code: -32603, message: 'no result' } };
}
