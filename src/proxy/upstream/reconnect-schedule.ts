import { attemptsAfterClose, backoffDelay, type BackoffPolicy } from '../../core/backoff.js';
import type { Logger } from '../../core/logger.js';

/**
 * When a connection that went down is tried again: after a delay that grows with each attempt, a
 * bounded number of times (../../core/backoff.ts, pure), then not until a call, or a listing a
 * cool-down later (revives), starts a new round;
 * a connection that stayed up long enough starts from the first attempt again. Apart from
 * ./upstream-connection.ts, which owns the states and says when one is down: this part only counts
 * attempts and keeps the one timer, so closing or sleeping has one thing to stop.
 */
export class ReconnectSchedule {
  /** Attempts spent in this round (what /health shows as reconnect_attempts). */
  attempts = 0;
  /** The attempts ran out; the next call starts a fresh round (and still fails fast). */
  private gaveUp = false;
  /** When the attempts last ran out: a listing starts a new round only a cool-down later. */
  private gaveUpAt = 0;
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
      this.gaveUp = true;
      this.gaveUpAt = Date.now();
      this.logger.error(
        `${this.name}: giving up after ${this.attempts} reconnect attempts; the next call, or a listing ${coolDownMs(this.policy)} ms from now, will try again`,
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
   * (the schedule's longest delay), so that a server broken for good is not started by every
   * listing. One round at a time: until this one runs out too, it is not started again.
   */
  revives(now = Date.now()): boolean {
    if (!this.gaveUp || now - this.gaveUpAt < coolDownMs(this.policy)) return false;
    return this.startsNewRound();
  }

  /** The timer is stopped: a call reconnects now, or the connection ends. */
  cancel(): void {
    clearTimeout(this.timer);
  }

  /** The connection was put to sleep: it wakes with a fresh round. */
  reset(): void {
    this.cancel();
    this.attempts = 0;
    this.gaveUp = false;
  }

  /** Connected: how long it then stays up decides whether the attempts spent still count. */
  connected(): void {
    this.upSince = Date.now();
  }

  /** The connection closed on its own: a server that stayed up long enough starts from the first attempt. */
  lost(): void {
    this.attempts = attemptsAfterClose(this.attempts, Date.now() - this.upSince, this.policy);
  }
}

/** How long after a round ran out a listing may start another: the schedule's longest delay. Pure. */
export function coolDownMs(policy: BackoffPolicy): number {
  return policy.maxAttempts > 0 ? (backoffDelay(policy.maxAttempts - 1, policy) ?? 0) : 0;
}
