import { poolOptions } from './pool-options.js';
import type { Dispatcher } from './watched-send.js';

/** undici's Agent, as much of it as a resend uses. */
interface Agent extends Dispatcher {
  destroy(): Promise<void>;
}

/**
 * The pool of one resent request (./upstream-fetch.ts): a new connection, made as the shared pool
 * makes its own, and ended once the request is over. Apart from ./upstream-fetch.ts, which decides
 * when to resend: this part only makes and ends the connection.
 *  - Its options are the shared pool's (undici keeps them on the Agent): a connector the process
 *    was given (a CA, a proxy-free socket, a connect timeout) and keep-alive timing reach the server
 *    the resend goes to as they reached it the first time.
 *  - It is destroyed, not closed, once the answer's body has been read to its end, or has failed,
 *    been cancelled or aborted (undici's fetch cancels a body dropped unread once it is collected):
 *    nothing is left to wait for, and a close would keep the socket for as long as a body no one
 *    reads is held. A redirect that fetch follows on it is a second request: the pool ends after
 *    the last.
 */
export function resendAgent(shared: Dispatcher | undefined): OneRequestPool | undefined {
  if (!shared) return undefined;
  try {
    const Kind = shared.constructor as new (options: object) => Agent;
    return new OneRequestPool(new Kind(poolOptions(shared)));
  } catch {
    return undefined; // a dispatcher set by someone else, whose options are not an Agent's: the shared pool then
  }
}

/** The dispatcher a resent fetch sends with: undici's Agent, destroyed once no request of it is under way. */
export class OneRequestPool implements Dispatcher {
  private underWay = 0;
  private ended = false;

  constructor(private readonly agent: Agent) {}

  dispatch(options: object, handler: Record<string, unknown>): boolean {
    this.underWay++;
    let over = false;
    const settle = () => {
      if (over) return;
      over = true;
      this.requestOver();
    };
    // undici ends each request with one of these: onComplete/onError in its handler interface of
    // Node 20's undici, onResponseEnd/onResponseError in the one after it. Only the hooks the
    // handler has are wrapped (undici tells the two interfaces apart by them; as ./watched-send.ts,
    // its own members, no Proxy).
    for (const name of ['onComplete', 'onError', 'onResponseEnd', 'onResponseError'] as const) {
      const original = handler[name];
      if (typeof original !== 'function') continue;
      handler[name] = (...args: unknown[]) => {
        try {
          return (original as (...args: unknown[]) => unknown).apply(handler, args);
        } finally {
          settle();
        }
      };
    }
    return this.agent.dispatch(options, handler);
  }

  /** Ends the pool now: its sockets are destroyed, whatever they still carry. */
  destroy(): void {
    if (this.ended) return;
    this.ended = true;
    void this.agent.destroy().catch(() => undefined);
  }

  close(): Promise<void> {
    this.destroy();
    return Promise.resolve();
  }

  /** A request ended: the pool ends unless fetch sends another on it (a redirect it follows, sent in the same turn). */
  private requestOver(): void {
    this.underWay--;
    setImmediate(() => {
      if (this.underWay === 0) this.destroy();
    });
  }
}
