/**
 * Races a connection's handshake against its deadline, as core/timeout.ts withTimeout does, with
 * one difference: when the deadline passes, the failure that is already waiting to be read wins.
 *
 * Node runs due timers before it reads finished I/O, so on a machine too busy to turn its event
 * loop for longer than the deadline (a one-shot command starting beside others), a connection
 * refused at once was still reported as a server that did not answer in time. At the deadline the
 * loop is given one turn (setImmediate runs after the I/O callbacks): a failure to reach the
 * server read in that turn (`failedMeanwhile`, the last one ./upstream-fetch.ts was told of: only
 * failures of the upstream's own origin, not of an OAuth server it looked up) is
 * the outcome, and a handshake that completed in it succeeds. Only then is it a timeout.
 */
export function handshakeDeadline<T>(
  handshake: Promise<T>,
  ms: number,
  outcome: { timedOut: () => Error; failedMeanwhile: () => Error | undefined },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      const before = outcome.failedMeanwhile();
      setImmediate(() => {
        // Only a failure read in this turn: one read before would have ended the handshake already.
        const read = outcome.failedMeanwhile();
        reject(read !== undefined && read !== before ? read : outcome.timedOut());
      });
    }, ms);
    handshake.then(
      (value) => {
        clearTimeout(timer);
        resolve(value); // within the turn after the deadline too: the answer was there to read
      },
      (error: unknown) => {
        // After the deadline, the SDK's own request timeout (set a moment after ours) also
        // fails the handshake: what the turn shows decides, not that.
        if (late) return;
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
}

/**
 * The limit given to the SDK's own timers for an HTTP handshake (its version probe, its
 * initialize): far past the deadline above, which decides (and whose end closes the transport,
 * failing whatever the SDK still waits for), a backstop only. Were both due at once, after the
 * loop was held, the SDK's timer, run in the same phase, would abort the request before the
 * deadline's turn read its refusal.
 */
export function sdkBackstopMs(deadlineMs: number): number {
  return deadlineMs * 10;
}
