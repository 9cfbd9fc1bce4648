/**
 * Whether a failed fetch to an HTTP upstream may be the keep-alive race: a pooled connection that
 * the server closed as idle (its keepAliveTimeout; Node's is 5 s) just as mcpkit sent a request on
 * it. undici keeps an idle connection until its own timer ends it, and that timer runs late on a
 * loaded machine, so under load a request can be written on a connection the server is closing.
 * ./idle-connections.ts ends such connections before a request is dispatched, by undici's own
 * rule; the race is still met with a server that closes sooner than its `Keep-Alive` hint says
 * (or than undici's 4 s, without one), or when the client read an answer's end late by more than
 * undici's margin (2 s).
 *
 * What the client knows when such a request fails before a byte of its answer: only that the
 * connection ended. It does NOT know whether the server's handler read the request: TCP says
 * nothing of what the application did with the bytes, and a server that read the request, ran it,
 * then crashed, was shut down in a deploy, or was cut off by a load balancer fails the same way
 * (FIN or RST, no answer) as one whose idle timer closed the connection first. So:
 *  - only a connection that had carried an earlier answer (reused) can be in the race; one made
 *    for this request never was idle, and its failure says the server may have read it: no resend;
 *  - even then the request may have run, so only a request whose second run changes nothing
 *    (./resend-safe.ts) is sent again. A tools/call is never sent twice.
 *
 * Pure: it reads the error's shape (undici's fetch rejects with TypeError('fetch failed', { cause })).
 */

/** What is known of the request's connection when it failed (./watched-send.ts). */
export interface SendFacts {
  /** The connection had carried (the start of) an earlier answer before this request was written on it. */
  reused: boolean;
  /** A byte of this request's answer had arrived. */
  responseStarted: boolean;
}

/** The connection-level codes of a connection the other side ended (undici's SocketError, or the system's). */
const ENDED_BY_SERVER = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * True for a failure that may be the server closing an idle, reused connection before any answer
 * to this request: the connection ended (the other side closed it, reset it, or was gone when the
 * request was written), it had carried an earlier answer, and no byte of this one arrived.
 */
export function closedBeforeAnswer(error: unknown, facts: SendFacts): boolean {
  if (facts.responseStarted || !facts.reused || !(error instanceof TypeError)) return false;
  const cause = (error as { cause?: unknown }).cause as { code?: unknown } | undefined;
  return !!cause && typeof cause === 'object' && typeof cause.code === 'string' && ENDED_BY_SERVER.has(cause.code);
}
