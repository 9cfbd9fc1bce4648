import { attemptsAfterClose, backoffDelay, type BackoffPolicy } from '../../core/backoff.js';
import type { Logger } from '../../core/logger.js';

/**
 * When a connection that went down is tried again: after a delay that grows with each attempt, a
 * bounded number of times (../../core/backoff.ts, pure), then not until a call, or a listing a
 * cool-down later (revives), starts a new round; the cool-down doubles with each round that runs
 * out until the server connects (coolDownMs). A connection that stayed up long enough starts from
 * the first attempt again. Durations are read from the monotonic clock (performance.now): a
 * wall-clock jump neither revives a server at once nor never. Apart from
 * ./upstream-connection.ts, which owns the states and says when one is down: this part only counts
 * attempts and keeps the one timer, so closing or sleeping has one thing to stop.
 */
export class ReconnectSchedule {
  /** Attempts spent in this round (what /health shows as reconnect_attempts). */
  attempts = 0;
  /** The attempts ran out; the next call starts a fresh round (and still fails fast). */
  private gaveUp = false;
  /** When the attempts last ran out (performance.now): a listing starts a new round only a cool-down later. */
  private gaveUpAt = 0;
  /** Rounds that ran out since the server last connected: each doubles the cool-down. */
  private roundsRunOut = 0;
  private timer?: NodeJS.Timeout;
  private upSince = 0;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly name: string,
    private readonly logger: Logger,
  ) {}

  /** Whether the connection reconnects at all: a one-off one (server test) does not. */
  get enabled(): boolean {
    return this.policy.maxAttempts !== 0;
  }

  /** Whether a call may reconnect at once instead of waiting for the timer: the first attempt after a failure. */
  get mayRetryNow(): boolean {
    return this.attempts <= 1 && !this.gaveUp && this.enabled;
  }

  /** `retry` runs after the next delay, unless the attempts ran out (then the next call starts a new round). */
  schedule(retry: () => void): void {
    if (!this.enabled) return;
    const delay = backoffDelay(this.attempts, this.policy);
    if (delay === undefined) {
      // An attempt made after the round ran out (not one of a new round) is no new round run out.
      if (!this.gaveUp) this.roundsRunOut++;
      this.gaveUp = true;
      this.gaveUpAt = performance.now();
      const wait = coolDownMs(this.policy, this.roundsRunOut);
      this.logger.error(
        `${this.name}: giving up after ${this.attempts} reconnect attempts; the next call of its tools will try again, and so will a listing ${seconds(wait)} from now (a wait that doubles with each round that fails, up to ${seconds(REVIVAL_COOL_DOWN_CAP_MS)})`,
      );
      return;
    }
    this.attempts++;
    clearTimeout(this.timer);
    this.timer = setTimeout(retry, delay);
    this.timer.unref();
  }

  /** A call found the connection down after the attempts ran out: it starts a new round, if so (then schedule). */
  startsNewRound(): boolean {
    if (!this.gaveUp) return false;
    this.gaveUp = false;
    this.attempts = 0;
    return true;
  }

  /**
   * A listing, or a call of a name the server's tools would have, found the server down after its
   * attempts ran out: it starts a new round (true), unless one ran out less than a cool-down ago
   * (coolDownMs: the schedule's longest delay, doubled for each further round that ran out since
   * the server last connected), so that a server broken for good is not started by every listing,
   * and ever more rarely. One round at a time: until this one runs out too, it is not started again.
   */
  revives(now = performance.now()): boolean {
    if (!this.gaveUp || now - this.gaveUpAt < coolDownMs(this.policy, this.roundsRunOut)) return false;
    return this.startsNewRound();
  }

  /** The timer is stopped: a call reconnects now, or the connection ends. */
  cancel(): void {
    clearTimeout(this.timer);
  }

  /** The connection was put to sleep: it wakes with a fresh round, and the first cool-down. */
  reset(): void {
    this.cancel();
    this.attempts = 0;
    this.gaveUp = false;
    this.roundsRunOut = 0;
  }

  /** Connected: how long it then stays up decides whether the attempts spent still count; the cool-down starts over. */
  connected(now = performance.now()): void {
    this.upSince = now;
    this.roundsRunOut = 0;
  }

  /** The connection closed on its own: a server that stayed up long enough starts from the first attempt. */
  lost(now = performance.now()): void {
    this.attempts = attemptsAfterClose(this.attempts, now - this.upSince, this.policy);
  }
}

/**
 * The longest cool-down: a server broken for good is then tried one round (7 attempts over some
 * 16 s with the default schedule) every 5 minutes, a few percent of the time, while a server fixed
 * meanwhile has its tools listed again within 5 minutes of the fix without a restart of serve (a
 * call of a tool it had listed starts a round at once). Longer would save little more load, and
 * leave a person who fixed the server waiting longer than they would before restarting serve.
 */
export const REVIVAL_COOL_DOWN_CAP_MS = 5 * 60_000;

/**
 * How long after a round ran out a listing may start another, once `roundsRunOut` rounds ran out
 * since the server last connected: the schedule's longest delay after the first, doubled after
 * each further one, at most REVIVAL_COOL_DOWN_CAP_MS (or the longest delay, when that is longer).
 * Pure.
 */
export function coolDownMs(policy: BackoffPolicy, roundsRunOut = 1): number {
  if (policy.maxAttempts <= 0) return 0;
  const longest = backoffDelay(policy.maxAttempts - 1, policy) ?? 0;
  // Past 52 doublings any delay of a ms is past the cap (and 0 * 2 ** 1100 would be NaN).
  const doublings = Math.min(Math.max(roundsRunOut, 1) - 1, 52);
  return Math.min(longest * 2 ** doublings, Math.max(REVIVAL_COOL_DOWN_CAP_MS, longest));
}

/** A wait as a person reads it in the log: whole seconds, or ms under one. Pure. */
function seconds(ms: number): string {
  return ms >= 1_000 ? `${Math.round(ms / 1_000)} s` : `${ms} ms`;
}
