import { ToolError } from './errors.js';

/**
 * Rate and concurrency limits, pure (the clock is given): a token bucket whose burst is its rate,
 * and a count of calls in flight with a queue that waits a bounded time. Used for serve.clients
 * (refuse at once) and serve.upstream_limits (queue up to queue_ms).
 */

/** A call refused by limits: a client's (serve.clients), or a server's after its queue (serve.upstream_limits). */
export function rateLimited(by: { client: string } | { server: string; queueMs: number }, refusal: { retryAfterMs: number; why: string }): ToolError {
  const wait = `Wait ${refusal.retryAfterMs} ms, then call again`;
  if ('client' in by) {
    return new ToolError('RATE_LIMITED', `Client ${by.client}: ${refusal.why}; the call was not run.`, {
      details: { client: by.client, retry_after_ms: refusal.retryAfterMs },
      hint: `${wait}.`,
    });
  }
  const waited = by.queueMs ? ` (waited ${by.queueMs} ms for a place)` : '';
  return new ToolError('RATE_LIMITED', `Server ${by.server}: ${refusal.why}${waited}; the call was not run.`, {
    details: { server: by.server, retry_after_ms: refusal.retryAfterMs },
    hint: `${wait} (serve.upstream_limits.${by.server} protects the server).`,
  });
}

/** A rate as the config writes it: `5/s`, `10/sec`, `30/min`, `2/minute`, `0.5/s`. */
export interface Rate {
  /** Calls allowed per second (may be fractional). */
  perSecond: number;
  /** Calls allowed at once after a quiet spell: the count as written (5/s: 5, 30/min: 30), at least 1. */
  burst: number;
  /** The text it was written as, for messages. */
  text: string;
}

const RATE = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(s|sec|second|m|min|minute)\s*$/;

/** The rate a text names, or undefined when it is not one (the schema says what is). */
export function parseRate(text: string): Rate | undefined {
  const match = RATE.exec(text);
  if (!match) return undefined;
  const count = Number(match[1]);
  if (!(count > 0)) return undefined;
  const perSecond = match[2]!.startsWith('m') ? count / 60 : count;
  return { perSecond, burst: Math.max(1, Math.floor(count)), text: text.trim() };
}

export type Admission = { ok: true; release(): void } | { ok: false; retryAfterMs: number; why: string };

/**
 * A token bucket holding at most the rate's burst (its count as written), refilled continuously
 * at the rate: `take(now)` spends one or says how long until one is there.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  readonly burst: number;
  private readonly perMs: number;

  constructor(
    readonly rate: Rate,
    now: number,
  ) {
    this.burst = rate.burst;
    this.perMs = rate.perSecond / 1000;
    this.tokens = this.burst;
    this.last = now;
  }

  /** Spends a token: 0 when it was there, else the milliseconds until one will be. */
  take(now: number): number {
    this.refill(now);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    // Less a hair: floating point makes 1 ms of 2/s 1.0000000000000009 ms.
    return Math.max(1, Math.ceil((1 - this.tokens) / this.perMs - 1e-9));
  }

  private refill(now: number): void {
    if (now > this.last) this.tokens = Math.min(this.burst, this.tokens + (now - this.last) * this.perMs);
    this.last = Math.max(this.last, now);
  }
}

export interface LimitSpec {
  rate?: Rate;
  maxConcurrent?: number;
}

/**
 * One client's (or one upstream's) limits: `admit` refuses at once when over the rate or the
 * number in flight; `wait` queues for a place up to a deadline (an upstream's queue_ms).
 */
export class Limiter {
  private bucket?: TokenBucket;
  private inFlight = 0;
  private readonly waiting: { grant(): void }[] = [];

  constructor(
    readonly spec: LimitSpec,
    private readonly now: () => number,
  ) {
    if (spec.rate) this.bucket = new TokenBucket(spec.rate, now());
  }

  get active(): number {
    return this.inFlight;
  }

  /** A place for one call now, or why not and when to try again. */
  admit(): Admission {
    const max = this.spec.maxConcurrent;
    if (max !== undefined && this.inFlight >= max) {
      // A place frees when a call ends: nothing better to say than "soon".
      return { ok: false, retryAfterMs: 100, why: `${max} calls are already in flight (max_concurrent: ${max})` };
    }
    const wait = this.bucket?.take(this.now()) ?? 0;
    if (wait > 0) return { ok: false, retryAfterMs: wait, why: `over its rate of ${this.spec.rate!.text}` };
    return this.hold();
  }

  /**
   * A place for one call, waiting for one up to `maxWaitMs` (and while `signal` is not aborted):
   * the rate's wait is slept, a full house waits for a call to end.
   */
  async wait(maxWaitMs: number, signal?: AbortSignal): Promise<Admission> {
    let admission: Admission | undefined;
    try {
      admission = await this.queueFor(maxWaitMs, signal);
      return admission;
    } finally {
      // A release hands its place to one waiter, which may leave without taking it (cancelled, or
      // refused by the rate): the next waiter is handed it instead of waiting out its queue_ms.
      if (!admission?.ok) this.handOnFreePlace();
    }
  }

  private handOnFreePlace(): void {
    const max = this.spec.maxConcurrent;
    if (max === undefined || this.inFlight < max) this.waiting.shift()?.grant();
  }

  private async queueFor(maxWaitMs: number, signal?: AbortSignal): Promise<Admission> {
    const deadline = this.now() + maxWaitMs;
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
      const max = this.spec.maxConcurrent;
      if (max === undefined || this.inFlight < max) {
        const wait = this.bucket?.take(this.now()) ?? 0;
        if (wait === 0) return this.hold();
        if (this.now() + wait > deadline) return { ok: false, retryAfterMs: wait, why: `over its rate of ${this.spec.rate!.text}` };
        await sleepUnless(wait, signal);
        continue;
      }
      const left = deadline - this.now();
      if (left <= 0) return { ok: false, retryAfterMs: 100, why: `${max} calls were in flight for the whole wait (max_concurrent: ${max})` };
      await this.freed(left, signal);
    }
  }

  private hold(): Admission {
    this.inFlight++;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.inFlight--;
        this.waiting.shift()?.grant();
      },
    };
  }

  /** Resolves when a call ends, the wait is over, or the signal aborts (then rejects). */
  private freed(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        grant: () => {
          done();
          resolve();
        },
      };
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      const onAbort = () => {
        done();
        reject(signal!.reason ?? new Error('cancelled'));
      };
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
      };
      this.waiting.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** Limits as the config writes them (serve.clients.NAME, serve.upstream_limits.NAME). */
export interface LimitText {
  rate?: string | undefined;
  max_concurrent?: number | undefined;
}

/**
 * A limiter per name (a client, a server), made from its limits as written and kept while they
 * stay the same: a reload neither refills a bucket nor forgets the calls in flight. Undefined for
 * a name with no limits.
 */
export class KeptLimiters {
  private readonly kept = new Map<string, { key: string; limiter: Limiter }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  of(name: string, limits: LimitText | undefined): Limiter | undefined {
    // Asked on the hot path for every call to a server: no limits costs a look, not a parse.
    if (limits?.rate === undefined && limits?.max_concurrent === undefined) {
      if (this.kept.size) this.kept.delete(name);
      return undefined;
    }
    const rate = limits.rate !== undefined ? parseRate(limits.rate) : undefined;
    const max = limits.max_concurrent;
    const key = `${limits?.rate ?? ''}\u0000${max ?? ''}`;
    const kept = this.kept.get(name);
    if (kept?.key === key) return kept.limiter;
    const limiter = new Limiter({ ...(rate ? { rate } : {}), ...(max !== undefined ? { maxConcurrent: max } : {}) }, this.now);
    this.kept.set(name, { key, limiter });
    return limiter;
  }
}

/** Sleeps `ms`, or rejects with the signal's reason when it aborts first. */
export function sleepUnless(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason ?? new Error('cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
