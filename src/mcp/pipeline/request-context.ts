import type { ClientCapabilities, JSONRPCMessage, RequestId, ServerContext } from '@modelcontextprotocol/server';
import type { ModernRequest } from '../../proxy/eras/era.js';
import { modernRequestOf } from './modern-request.js';

/** tools/call's params as a carrier passes them on (the SDK has checked them, or the wire has their shape). */
export interface CallParams {
  name: string;
  arguments?: Record<string, unknown> | undefined;
  _meta?: Record<string, unknown> | undefined;
}

/**
 * What one downstream request brings to the dispatcher (./dispatcher.ts), whatever carried it: the
 * SDK server's handler (sdkRequestContext below), the wire's own tools/call (./wire-calls.ts), or
 * the task host's later rounds (./task-host.ts). The dispatcher reads nothing of the transport.
 */
export interface RequestContext {
  readonly id: RequestId;
  /** The transport's session (a 2025-11-25 HTTP session), for the audit log. */
  readonly session?: string | undefined;
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
  /**
   * A carrier that answers without an AbortSignal of its own (the HTTP hot path saves one, and
   * its listener, per call): when its client goes away it sets `gone` and calls `run`, which the
   * dispatcher sets while the call can be cancelled. `signal` is then one that never aborts.
   */
  readonly cancel?: { gone?: boolean; run?: (() => void) | undefined } | undefined;
  /** A 2026-07-28 request's envelope (its `_meta`); undefined for a 2025-11-25 request. */
  readonly envelope?: Readonly<Record<string, unknown>> | undefined;
  /** What a 2026-07-28 request passes on to the server it is proxied to. */
  readonly modern?: ModernRequest | undefined;
  /** A 2026-07-28 retry's answers, and the state issued with the question it answers. */
  readonly inputResponses?: unknown;
  readonly requestState?: unknown;
  /** Sends a notification about this request (progress, a server's log line) to the client. */
  notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  /** Asks a 2025-11-25 client (elicitation/create, about this request); absent where no one can be asked. */
  readonly elicit?: ((params: Record<string, unknown>, timeoutMs: number) => Promise<Record<string, unknown>>) | undefined;
  /**
   * The carrier sends the answer itself (the wire): the dispatcher hands it the result and counts
   * the bytes of the result it says it sent, rather than returning the result for the SDK to send.
   */
  readonly send?: ((result: Record<string, unknown>) => number | void) | undefined;
  /** An upstream's progress as it sent it, the client's token put back (the hot path); absent: through `notify`. */
  readonly relay?: ((message: JSONRPCMessage) => void) | undefined;
  /** When the request arrived (performance.now()): serve.tasks.after_ms counts from then. */
  readonly arrived?: number;
  /** A code run's call: the run's request id and its tool (the audit log's `parent` and `via`). */
  readonly parent?: { request: RequestId; via: string } | undefined;
  /** Where the request's span hangs (a code run's call: under the run's); else the request's own `_meta`. */
  readonly traceContext?: Record<string, unknown> | undefined;
}

/** The request context of a request the SDK server's handler answers. */
export function sdkRequestContext(ctx: ServerContext): RequestContext {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const inputResponses = ctx.mcpReq.inputResponses;
  const requestState = envelope === undefined ? undefined : ctx.mcpReq.requestState();
  const headers = ctx.http?.req?.headers;
  const modern = modernRequestOf(envelope, { inputResponses, requestState }, headers);
  return {
    id: ctx.mcpReq.id,
    session: ctx.sessionId,
    signal: ctx.mcpReq.signal,
    envelope,
    ...(modern ? { modern } : {}),
    ...(inputResponses !== undefined ? { inputResponses } : {}),
    ...(requestState !== undefined ? { requestState } : {}),
    notify: (notification) => ctx.mcpReq.notify(notification as Parameters<ServerContext['mcpReq']['notify']>[0]),
    elicit: (params, timeoutMs) =>
      ctx.mcpReq.elicitInput(params as Parameters<ServerContext['mcpReq']['elicitInput']>[0], { timeout: timeoutMs }) as Promise<Record<string, unknown>>,
  };
}

/**
 * The client at the other end of one connection, as the dispatcher needs it: what it declared, and
 * a way to ask it things and tell it things (the SDK server of its connection).
 */
export interface Downstream {
  capabilities(): ClientCapabilities | undefined;
  /** Its name and version, as it gave them at initialize (a 2026-07-28 request names them in its envelope). */
  client(): { name?: unknown; version?: unknown } | undefined;
  request(method: string, params: Record<string, unknown> | undefined, related?: RequestId): Promise<Record<string, unknown>>;
  notify(notification: { method: string; params?: Record<string, unknown> }, related?: RequestId): Promise<void>;
}
