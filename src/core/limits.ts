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
 *
 * A place freed while calls queue is handed to the first of them, still counted in flight: a call
 * arriving meanwhile cannot take it, so the queue is served in order, and a waiter that leaves
 * with a place handed to it (cancelled, or refused by the rate) hands it on in turn.
 */
export class Limiter {
  private bucket?: TokenBucket;
  private inFlight = 0;
  private readonly waiting: { grant(): void }[] = [];

  constructor(
    private spec: LimitSpec,
    private readonly now: () => number,
  ) {
    if (spec.rate) this.bucket = new TokenBucket(spec.rate, now());
  }

  get active(): number {
    return this.inFlight;
  }

  /**
   * New limits, keeping the calls in flight and the queue: a new rate gets a new bucket, and a
   * higher max_concurrent hands its new places to the calls queued.
   */
  retune(spec: LimitSpec): void {
    if (spec.rate?.text !== this.spec.rate?.text) this.bucket = spec.rate ? new TokenBucket(spec.rate, this.now()) : undefined;
    this.spec = spec;
    const max = spec.maxConcurrent;
    while (this.waiting.length && (max === undefined || this.inFlight < max)) {
      this.inFlight++;
      this.waiting.shift()!.grant();
    }
  }

  /** A place for one call now, or why not and when to try again. */
  admit(): Admission {
    const max = this.spec.maxConcurrent;
    if (max !== undefined && !this.hasRoom()) {
      // A place frees when a call ends: nothing better to say than "soon".
      return { ok: false, retryAfterMs: 100, why: `${max} calls are already in flight (max_concurrent: ${max})` };
    }
    const wait = this.bucket?.take(this.now()) ?? 0;
    if (wait > 0) return { ok: false, retryAfterMs: wait, why: `over its rate of ${this.spec.rate!.text}` };
    this.inFlight++;
    return this.placeHeld();
  }

  /**
   * A place for one call, waiting for one up to `maxWaitMs` (and while `signal` is not aborted):
   * a full house waits its turn in the queue, then the rate's wait is slept.
   */
  async wait(maxWaitMs: number, signal?: AbortSignal): Promise<Admission> {
    const deadline = this.now() + maxWaitMs;
    // Whether this call counts in inFlight without having returned its place yet.
    let holding = false;
    try {
      for (;;) {
        if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
        // Read again each turn: a reload may have set a max_concurrent while this call slept for the rate.
        const max = this.spec.maxConcurrent;
        if (!holding && max !== undefined) {
          if (this.hasRoom()) this.inFlight++;
          else if (deadline - this.now() <= 0 || !(await this.handed(deadline - this.now(), signal))) {
            return { ok: false, retryAfterMs: 100, why: `${max} calls were in flight for the whole wait (max_concurrent: ${max})` };
          }
          holding = true;
          continue;
        }
        const wait = this.bucket?.take(this.now()) ?? 0;
        if (wait === 0) break;
        if (this.now() + wait > deadline) return { ok: false, retryAfterMs: wait, why: `over its rate of ${this.spec.rate!.text}` };
        await sleepUnless(wait, signal);
      }
      if (!holding) this.inFlight++;
      holding = false;
      return this.placeHeld();
    } finally {
      if (holding) this.handOn();
    }
  }

  /** Nothing in flight and nothing queued: a limiter whose limits were removed can be forgotten. */
  get idle(): boolean {
    return this.inFlight === 0 && this.waiting.length === 0;
  }

  /** Room for one more call now: under max_concurrent, and nobody queued ahead. */
  private hasRoom(): boolean {
    const max = this.spec.maxConcurrent;
    return max === undefined || (this.inFlight < max && this.waiting.length === 0);
  }

  /** A place given back: to the first call queued, unless max_concurrent was lowered below those in flight. */
  private handOn(): void {
    const max = this.spec.maxConcurrent;
    const next = max === undefined || this.inFlight <= max ? this.waiting.shift() : undefined;
    if (next) next.grant();
    else this.inFlight--;
  }

  private placeHeld(): Admission {
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.handOn();
      },
    };
  }

  /** Whether a place was handed to this call (it then counts in flight) before `ms` ran out; rejects when the signal aborts first. */
  private handed(ms: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const waiter = {
        grant: () => {
          done();
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        done();
        resolve(false);
      }, timerMs(ms));
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

/** Node fires a timer of more than 2^31-1 ms after 1 ms: a longer wait (a queue_ms of weeks) ends at that bound. */
function timerMs(ms: number): number {
  return Math.min(Math.max(0, ms), 2 ** 31 - 1);
}

/** Limits as the config writes them (serve.clients.NAME, serve.upstream_limits.NAME). */
export interface LimitText {
  rate?: string | undefined;
  max_concurrent?: number | undefined;
}

/** The key of a kept limiter whose limits were removed while it had calls. */
const NO_LIMITS = '';

/**
 * A limiter per name (a client, a server), made from its limits as written and kept across
 * reloads: the same limits neither refill a bucket nor forget the calls in flight, and changed
 * ones retune it (a new rate, a new bucket) with its calls in flight and its queue. Undefined for
 * a name with no limits.
 */
export class KeptLimiters {
  private readonly kept = new Map<string, { key: string; limiter: Limiter }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  of(name: string, limits: LimitText | undefined): Limiter | undefined {
    // Asked on the hot path for every call to a server: no limits costs a look, not a parse.
    if (limits?.rate === undefined && limits?.max_concurrent === undefined) {
      const kept = this.kept.size ? this.kept.get(name) : undefined;
      if (kept?.limiter.idle) this.kept.delete(name);
      else if (kept && kept.key !== NO_LIMITS) {
        // Removed while calls run or queue: the queue is let in, and the calls still count, should
        // the limits come back before they end (a new limiter would start at none in flight).
        kept.limiter.retune({});
        kept.key = NO_LIMITS;
      }
      return undefined;
    }
    const rate = limits.rate !== undefined ? parseRate(limits.rate) : undefined;
    const max = limits.max_concurrent;
    const key = `${limits?.rate ?? ''}\u0000${max ?? ''}`;
    const kept = this.kept.get(name);
    if (kept?.key === key) return kept.limiter;
    const spec = { ...(rate ? { rate } : {}), ...(max !== undefined ? { maxConcurrent: max } : {}) };
    if (kept) {
      // Changed limits: the same limiter, retuned, so the calls in flight still count (a new one
      // started at none, and let max_concurrent more through while they ran).
      kept.limiter.retune(spec);
      kept.key = key;
      return kept.limiter;
    }
    const limiter = new Limiter(spec, this.now);
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
    }, timerMs(ms));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason ?? new Error('cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
