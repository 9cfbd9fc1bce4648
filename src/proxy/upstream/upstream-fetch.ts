import type { FetchLike } from '@modelcontextprotocol/client';
import { closedBeforeAnswer, resendable } from './closed-before-answer.js';

/**
 * The fetch an HTTP upstream's transport sends with (streamable HTTP and SSE alike), over the
 * fetch it would use otherwise (the OAuth one, or Node's):
 *  - a request that fails because the server closed its pooled, idle connection as the request
 *    was sent (./closed-before-answer.ts) is sent once more, on a new connection of its own;
 *  - every failure to reach the server is told to `failed`, so that a handshake whose deadline
 *    passed while the machine was too busy to read the failure reports the failure, not a timeout
 *    (./handshake-deadline.ts).
 */
export function upstreamFetch(base: FetchLike, failed: (error: Error) => void): FetchLike {
  return async (url, init) => {
    const shared = globalDispatcher();
    const seen = { responseStarted: false };
    try {
      return await base(url, shared ? withDispatcher(init, watched(shared, seen)) : init);
    } catch (error) {
      // Without undici's dispatcher, whether the answer had begun is unknown: no second send.
      if (!shared || !closedBeforeAnswer(error, seen.responseStarted) || !resendable(init?.body) || init?.signal?.aborted) {
        if (error instanceof Error && error.name !== 'AbortError') failed(error);
        throw error;
      }
      return resendOnNewConnection(base, url, init, failed);
    }
  };
}

async function resendOnNewConnection(base: FetchLike, url: string | URL, init: RequestInit | undefined, failed: (error: Error) => void): Promise<Response> {
  const fresh = newAgent();
  try {
    return await base(url, fresh ? withDispatcher(init, fresh) : init);
  } catch (error) {
    if (error instanceof Error && error.name !== 'AbortError') failed(error);
    throw error;
  } finally {
    // Closing waits for the request under way (its answer's body too), then ends the connection.
    void fresh?.close().catch(() => undefined);
  }
}

/** undici's dispatcher interface, as much of it as this file uses (Node bundles undici without exporting it). */
interface Dispatcher {
  dispatch(options: object, handler: Record<string, unknown>): boolean;
  close(): Promise<void>;
}

/** The dispatcher Node's fetch sends with; reading globalThis.fetch loads it. */
function globalDispatcher(): Dispatcher | undefined {
  void globalThis.fetch;
  const found = (globalThis as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')] as Partial<Dispatcher> | undefined;
  return typeof found?.dispatch === 'function' && typeof found.close === 'function' ? (found as Dispatcher) : undefined;
}

/** A new pool of connections of the global dispatcher's kind (undici's Agent), or undefined where it cannot be made. */
function newAgent(): Dispatcher | undefined {
  const shared = globalDispatcher();
  try {
    const Kind = shared?.constructor as (new () => Dispatcher) | undefined;
    return Kind ? new Kind() : undefined;
  } catch {
    return undefined; // a dispatcher set by someone else, which needs options: the shared pool then
  }
}

/** `dispatcher` is Node's own RequestInit member (undici), not in the DOM type the SDK's FetchLike uses. */
function withDispatcher(init: RequestInit | undefined, dispatcher: Dispatcher): RequestInit {
  return { ...init, dispatcher } as RequestInit;
}

/** The shared dispatcher, noting when a byte of the answer arrives (undici's onResponseStarted). */
function watched(inner: Dispatcher, seen: { responseStarted: boolean }): Dispatcher {
  return {
    dispatch: (options, handler) =>
      inner.dispatch(
        options,
        new Proxy(handler, {
          get(target, key) {
            if (key === 'onResponseStarted') {
              return () => {
                seen.responseStarted = true;
                return (target.onResponseStarted as (() => unknown) | undefined)?.call(target);
              };
            }
            const value = Reflect.get(target, key) as unknown;
            return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
          },
        }),
      ),
    close: () => inner.close(),
  };
}
