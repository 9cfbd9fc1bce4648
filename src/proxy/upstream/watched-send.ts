import { subscribe } from 'node:diagnostics_channel';
import type { SendFacts } from './closed-before-answer.js';
import { endStaleConnections, followConnections } from './idle-connections.js';

/** undici's dispatcher interface, as much of it as mcpkit uses (Node bundles undici without exporting it). */
export interface Dispatcher {
  dispatch(options: object, handler: Record<string, unknown>): boolean;
  close(): Promise<void>;
}

/** Connections (undici's sockets) on which a byte of an answer to a watched request arrived. */
const answered = new WeakSet<object>();
/** undici's request object -> the watched send it was made for. */
const sends = new WeakMap<object, WatchedSend>();
/** The send whose dispatch is under way: undici makes its request object in that same call. */
let dispatching: WatchedSend | undefined;
let listening = false;
const nowDispatching = (send: WatchedSend | undefined) => void (dispatching = send);

/**
 * undici tells its diagnostics channels when it makes a request object and when it writes that
 * request's headers on a connection (`socket`): the only place the connection of a request shows.
 * Where undici says neither, a send stays not reused, and is never sent again.
 */
function listen(): void {
  if (listening) return;
  listening = true;
  subscribe('undici:request:create', (message) => {
    const request = (message as { request?: object }).request;
    if (dispatching && request) sends.set(request, dispatching);
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as { request?: object; socket?: object };
    const send = request && sends.get(request);
    if (!send || !socket) return;
    send.socket = socket;
    send.reused = answered.has(socket);
  });
}

/**
 * The dispatcher one fetch sends with: the shared one, after ending the connections of the
 * request's origin idle past their keeping (./idle-connections.ts), noting what
 * ./closed-before-answer.ts needs (whether the connection had carried an earlier answer, whether
 * a byte of this answer arrived).
 * One small object per request, which is also where its facts are kept: the init's dispatcher is
 * the only thing a fetch call and undici's dispatch share. Only `onResponseStarted` of undici's
 * handler is wrapped (no Proxy: its other members are read as they are).
 */
export class WatchedSend implements Dispatcher, SendFacts {
  reused = false;
  responseStarted = false;
  socket: object | undefined;

  constructor(private readonly inner: Dispatcher) {
    listen();
    followConnections();
  }

  dispatch(options: object, handler: Record<string, unknown>): boolean {
    const started = handler.onResponseStarted as (() => unknown) | undefined;
    handler.onResponseStarted = () => {
      this.responseStarted = true;
      if (this.socket) answered.add(this.socket);
      return started?.call(handler);
    };
    // Never on a connection the server may be closing as idle (./idle-connections.ts).
    const origin = (options as { origin?: unknown }).origin;
    if (origin !== undefined) endStaleConnections(String(origin), this.inner);
    nowDispatching(this);
    try {
      return this.inner.dispatch(options, handler);
    } finally {
      nowDispatching(undefined);
    }
  }

  /** Nothing of its own to close: the shared pool is the process's, not one request's. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
