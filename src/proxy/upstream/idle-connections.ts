import { subscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { keepAliveHintOfHeaders, keepTimingOf, pastKeeping, type KeepTiming } from './keep-alive-timing.js';
import { poolOptions } from './pool-options.js';

/**
 * The idle connections of undici's pools, by origin, so that a request to an HTTP upstream is never
 * written on one the server may be closing (./keep-alive-timing.ts): before it is dispatched, the
 * connections of its origin idle past their keeping are destroyed, by a monotonic clock read then,
 * not by undici's timer, which a loaded machine runs late (a tools/call written on such a
 * connection fails unanswered, and is not sent again: ./resend-safe.ts). undici then opens a new
 * connection for it: a socket destroyed while idle is one it meets as if the server had closed it
 * (no request of it fails), and it does not write on a destroyed socket meanwhile.
 *
 * Every undici request of the process is followed, whoever sends it (an OAuth fetch to the same
 * origin too): a connection a request is under way on is never taken for idle. A connection undici
 * says nothing of (no request seen on it, or one that never ended: an upgrade) is never destroyed.
 */

interface Connection {
  readonly origin: string;
  /** Requests written on it whose answer has not ended (more than one only with pipelining). */
  underWay: number;
  /** performance.now() when its last answer ended, or failed. */
  idleSince: number;
  /** The `Keep-Alive: timeout=N` of its last answer, in ms; undefined: none. */
  hintMs: number | undefined;
}

/** undici's sockets -> what is known of them, while they are open. */
const connections = new WeakMap<object, Connection>();
/** Origin -> its open sockets; a socket leaves at its 'close'. */
const byOrigin = new Map<string, Set<object>>();
/** undici's request object -> the socket it was written on, until its answer ends. */
const writtenOn = new WeakMap<object, object>();
/** The keep-alive timing of a pool, read once from its options. */
const timings = new WeakMap<object, KeepTiming>();
let following = false;

/** Starts following undici's requests (once per process); the first request of the process is followed if this ran before it. */
export function followConnections(): void {
  if (following) return;
  following = true;
  subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as { request?: { origin?: unknown }; socket?: object };
    if (!request || !socket) return;
    const connection = connections.get(socket) ?? opened(socket, String(request.origin));
    connection.underWay++;
    writtenOn.set(request, socket);
  });
  subscribe('undici:request:headers', (message) => {
    const { request, response } = message as { request?: object; response?: { headers?: unknown } };
    const socket = request && writtenOn.get(request);
    const connection = socket && connections.get(socket);
    if (connection) connection.hintMs = keepAliveHintOfHeaders(response?.headers);
  });
  const ended = (message: unknown) => {
    const request = (message as { request?: object }).request;
    const socket = request && writtenOn.get(request);
    if (!socket) return; // not seen written, or already ended (undici ends a request whose handler threw twice)
    writtenOn.delete(request);
    const connection = connections.get(socket);
    if (!connection) return;
    connection.underWay = Math.max(0, connection.underWay - 1);
    connection.idleSince = performance.now();
  };
  subscribe('undici:request:trailers', ended);
  subscribe('undici:request:error', ended);
}

function opened(socket: object, origin: string): Connection {
  const connection: Connection = { origin, underWay: 0, idleSince: performance.now(), hintMs: undefined };
  connections.set(socket, connection);
  let open = byOrigin.get(origin);
  if (!open) byOrigin.set(origin, (open = new Set()));
  open.add(socket);
  (socket as { once?: (event: string, listener: () => void) => void }).once?.('close', () => forget(socket, connection));
  return connection;
}

function forget(socket: object, connection: Connection): void {
  connections.delete(socket);
  const open = byOrigin.get(connection.origin);
  open?.delete(socket);
  if (open?.size === 0) byOrigin.delete(connection.origin);
}

/**
 * Destroys the idle connections to `origin` that have been idle past their keeping under `pool`'s
 * timing, now: called as a request to it is dispatched, so that it goes on a connection the server
 * is not closing. The cost when there is none: one Map lookup.
 */
export function endStaleConnections(origin: string, pool: object): void {
  const open = byOrigin.get(origin);
  if (!open) return;
  const now = performance.now();
  const timing = timingOf(pool);
  for (const socket of open) {
    const connection = connections.get(socket);
    if (!connection || connection.underWay > 0 || !pastKeeping(now - connection.idleSince, connection.hintMs, timing)) continue;
    forget(socket, connection);
    (socket as { destroy?: () => void }).destroy?.();
  }
}

function timingOf(pool: object): KeepTiming {
  let timing = timings.get(pool);
  if (!timing) timings.set(pool, (timing = keepTimingOf(poolOptions(pool) as Record<string, unknown>)));
  return timing;
}
