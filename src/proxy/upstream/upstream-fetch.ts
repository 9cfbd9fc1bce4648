import type { FetchLike } from '@modelcontextprotocol/client';
import { closedBeforeAnswer } from './closed-before-answer.js';
import { resendAgent } from './resend-agent.js';
import { resendSafe } from './resend-safe.js';
import { WatchedSend, type Dispatcher } from './watched-send.js';

/**
 * The fetch an HTTP upstream's transport sends with (streamable HTTP and SSE alike), over the
 * fetch it would use otherwise (the OAuth one, or Node's):
 *  - no request is written on a connection idle past undici's keeping, which the server may be
 *    closing: such connections of its origin are ended first (./idle-connections.ts, by WatchedSend);
 *  - a side-effect-free request (./resend-safe.ts; never a tools/call) that failed because the
 *    server ended a reused connection before a byte of the answer (./closed-before-answer.ts: the
 *    keep-alive race with a server that closes sooner than it said, or a server that read it and
 *    failed) is sent once more, on a new connection;
 *  - every failure to reach the upstream's own origin is told to `failed`, so that a handshake
 *    whose deadline passed while the machine was too busy to read the failure reports the failure,
 *    not a timeout (./handshake-deadline.ts). Failures of other hosts (an OAuth server's metadata)
 *    are not: they are not this server's.
 */
export function upstreamFetch(base: FetchLike, upstream: URL, failed: (error: Error) => void): FetchLike {
  const tell = (url: string | URL, error: unknown) => {
    if (error instanceof Error && error.name !== 'AbortError' && sameOrigin(url, upstream)) failed(error);
  };
  return async (url, init) => {
    const shared = globalDispatcher();
    const send = shared ? new WatchedSend(shared) : undefined;
    try {
      return await base(url, send ? withDispatcher(init, send) : init);
    } catch (error) {
      // Without undici's dispatcher, nothing is known of the connection: no second send.
      if (!send || init?.signal?.aborted || !closedBeforeAnswer(error, send) || !resendSafe(init?.method, init?.body)) {
        tell(url, error);
        throw error;
      }
      return resendOnNewConnection(base, url, init, tell);
    }
  };
}

function sameOrigin(url: string | URL, upstream: URL): boolean {
  try {
    return new URL(url).origin === upstream.origin;
  } catch {
    return false;
  }
}

async function resendOnNewConnection(
  base: FetchLike,
  url: string | URL,
  init: RequestInit | undefined,
  tell: (url: string | URL, error: unknown) => void,
): Promise<Response> {
  // Its own pool, with the shared one's options, destroyed once the answer's body is over (./resend-agent.ts).
  const fresh = resendAgent(globalDispatcher());
  try {
    return await base(url, fresh ? withDispatcher(init, fresh) : init);
  } catch (error) {
    fresh?.destroy();
    tell(url, error);
    throw error;
  }
}

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/**
 * The dispatcher Node's fetch sends with. Node loads its bundled undici, which makes it, on the
 * first fetch call, or on the first read of `Headers` (not of `fetch`, a plain function that loads
 * undici when called): reading `Headers` makes it exist before the process's first request, so
 * that request is watched too and its connection counts as answered. Where it still does not
 * exist, the request goes unwatched and is never sent again (it is on a new connection anyway).
 */
function globalDispatcher(): Dispatcher | undefined {
  const holder = globalThis as Record<symbol, unknown>;
  if (!holder[GLOBAL_DISPATCHER]) void globalThis.Headers;
  const found = holder[GLOBAL_DISPATCHER] as Partial<Dispatcher> | undefined;
  return typeof found?.dispatch === 'function' && typeof found.close === 'function' ? (found as Dispatcher) : undefined;
}

/** `dispatcher` is Node's own RequestInit member (undici), not in the DOM type the SDK's FetchLike uses. */
function withDispatcher(init: RequestInit | undefined, dispatcher: Dispatcher): RequestInit {
  return { ...init, dispatcher } as RequestInit;
}
