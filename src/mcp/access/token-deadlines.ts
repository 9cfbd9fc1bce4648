import { nextTokenDeadline, type ClientTokens } from './client-tokens.js';

/** setTimeout's longest wait (about 24.8 days); a later deadline is waited for in steps. */
const LONGEST_WAIT_MS = 2 ** 31 - 1;
/** A little past the instant, so that the check it starts sees the token as ended. */
const PAST_MS = 5;

/**
 * Wakes `check` when a client's token expires or a rotated-out token's grace ends, so that the
 * sessions and streams opened with it end then, as a revoked token's do after a reload (a request
 * is refused by its own check anyway). One timer, for the nearest deadline of the clients now.
 */
export function followTokenDeadlines(
  check: () => void,
  now: () => number = Date.now,
): { follow(clients: readonly ClientTokens[] | undefined): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let clientsNow: readonly ClientTokens[] | undefined;
  const follow = (clients: readonly ClientTokens[] | undefined) => {
    clientsNow = clients;
    if (timer) clearTimeout(timer);
    timer = undefined;
    const at = nextTokenDeadline(clients, now());
    if (at === undefined) return;
    const wait = at - now() + PAST_MS;
    timer = setTimeout(() => (wait > LONGEST_WAIT_MS ? follow(clientsNow) : check()), Math.min(wait, LONGEST_WAIT_MS));
    timer.unref();
  };
  return {
    follow,
    stop: () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
