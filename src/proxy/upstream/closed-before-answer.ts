/**
 * Whether a failed fetch to an HTTP upstream is the keep-alive race: a pooled connection that the
 * server closed as idle (its keepAliveTimeout; Node's is 5 s) just as mcpkit sent a request on it.
 * undici keeps an idle connection until its own timer ends it, and that timer runs late on a
 * loaded machine (its clock advances one tick per firing, not with the wall clock), so under load
 * the request is written on a connection the server is closing, and fails before a single byte of
 * an answer. Such a request never reached the server's handler (the server closed the connection
 * instead of reading it), so sending it again on a new connection runs it once, not twice.
 *
 * Pure: it reads the error's shape (undici's fetch rejects with TypeError('fetch failed', { cause })).
 */

/** What undici says of a socket that ended under a request (its SocketError's `socket`). */
interface SocketFacts {
  bytesRead?: number;
}

/**
 * True for a failure that is the server closing the connection before any answer to this request:
 *  - `UND_ERR_SOCKET` (the other side closed) on a connection that had already carried an answer
 *    (bytes were read on it, and none of them were this request's: `responseStarted` is false);
 *  - `EPIPE` or `ECONNRESET` before any byte of the answer: the server's side of the connection
 *    was gone when the request arrived, and its system discarded the request unread.
 * Never after a byte of the answer arrived: a server that started answering had read the request.
 */
export function closedBeforeAnswer(error: unknown, responseStarted: boolean): boolean {
  if (responseStarted || !(error instanceof TypeError)) return false;
  const cause = (error as { cause?: unknown }).cause as { code?: unknown; socket?: SocketFacts } | undefined;
  if (!cause || typeof cause !== 'object') return false;
  if (cause.code === 'EPIPE' || cause.code === 'ECONNRESET') return true;
  // A new connection the server closed unanswered is no idle connection: a server that does that
  // would do it again, and may have read the request.
  return cause.code === 'UND_ERR_SOCKET' && typeof cause.socket?.bytesRead === 'number' && cause.socket.bytesRead > 0;
}

/** A request body that can be sent a second time as it is (the SDK sends JSON text). */
export function resendable(body: unknown): boolean {
  return body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array || body instanceof URLSearchParams;
}
