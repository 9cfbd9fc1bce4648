import { describe, expect, it } from 'vitest';
import { KeptLimiters, Limiter, parseRate, rateLimited, TokenBucket, type Admission, type Rate } from '../../src/core/limits.js';

describe('parseRate', () => {
  it.each([
    ['5/s', { perSecond: 5, burst: 5 }],
    ['10/sec', { perSecond: 10, burst: 10 }],
    ['30/min', { perSecond: 0.5, burst: 30 }],
    ['2/minute', { perSecond: 2 / 60, burst: 2 }],
    ['0.5/s', { perSecond: 0.5, burst: 1 }],
    [' 3 / s ', { perSecond: 3, burst: 3 }],
  ])('%s', (text, want) => {
    expect(parseRate(text)).toMatchObject(want);
  });

  it.each(['', '5', '5/h', '-1/s', '0/s', 'five/s', '5/s/s'])('refuses %j', (text) => {
    expect(parseRate(text)).toBeUndefined();
  });
});

describe('TokenBucket', () => {
  it('lets a burst of the rate through at once, then one per interval, and says how long to wait', () => {
    const bucket = new TokenBucket(parseRate('2/s')!, 0);
    expect([bucket.take(0), bucket.take(0)]).toEqual([0, 0]);
    expect(bucket.take(0)).toBe(500);
    expect(bucket.take(499)).toBe(1);
    expect(bucket.take(500)).toBe(0);
    // A long quiet spell refills only up to the burst.
    expect([bucket.take(60_000), bucket.take(60_000), bucket.take(60_000)]).toEqual([0, 0, 500]);
  });

  it('per minute: the burst is the count, refilled over the minute', () => {
    const bucket = new TokenBucket(parseRate('3/min')!, 0);
    expect([0, 0, 0].map((t) => bucket.take(t))).toEqual([0, 0, 0]);
    expect(bucket.take(0)).toBe(20_000);
    expect(bucket.take(20_000)).toBe(0);
  });
});

describe('Limiter', () => {
  it('admit: refuses past max_concurrent until a place is released (once per place)', () => {
    const limiter = new Limiter({ maxConcurrent: 2 }, () => 0);
    const a = limiter.admit();
    const b = limiter.admit();
    const c = limiter.admit();
    expect([a.ok, b.ok, c.ok]).toEqual([true, true, false]);
    if (!c.ok) expect(c.why).toContain('max_concurrent: 2');
    if (a.ok) {
      a.release();
      a.release();
    }
    expect(limiter.active).toBe(1);
    expect(limiter.admit().ok).toBe(true);
    expect(limiter.admit().ok).toBe(false);
  });

  it('admit: counts a burst against the rate, refused and answered', () => {
    let now = 0;
    const limiter = new Limiter({ rate: parseRate('3/s')! }, () => now);
    const outcomes = Array.from({ length: 10 }, () => limiter.admit());
    expect(outcomes.filter((o) => o.ok)).toHaveLength(3);
    const refused = outcomes.filter((o) => !o.ok);
    expect(refused).toHaveLength(7);
    expect(refused[0]).toMatchObject({ retryAfterMs: 334, why: 'over its rate of 3/s' });
    now = 1000;
    expect(Array.from({ length: 4 }, () => limiter.admit().ok)).toEqual([true, true, true, false]);
  });

  it('wait: a queued call gets the place a finished call frees', async () => {
    const limiter = new Limiter({ maxConcurrent: 1 }, () => performance.now());
    const first = limiter.admit();
    const queued = limiter.wait(5_000);
    setTimeout(() => first.ok && first.release(), 20);
    const got = await queued;
    expect(got.ok).toBe(true);
    expect(limiter.active).toBe(1);
  });

  it('wait: refused once the queue time is over, and a cancelled wait leaves the queue', async () => {
    const limiter = new Limiter({ maxConcurrent: 1 }, () => performance.now());
    const first = limiter.admit();
    expect(await limiter.wait(30)).toMatchObject({ ok: false, why: expect.stringContaining('in flight for the whole wait') });
    const abort = new AbortController();
    const cancelled = limiter.wait(5_000, abort.signal);
    abort.abort(new Error('client cancelled'));
    await expect(cancelled).rejects.toThrow('client cancelled');
    // The cancelled wait took no place: the next release goes to a live waiter.
    const next = limiter.wait(5_000);
    if (first.ok) first.release();
    expect((await next).ok).toBe(true);
  });

  it('wait: a waiter handed a place and cancelled before it took it passes the place on to the next one', async () => {
    const limiter = new Limiter({ maxConcurrent: 1 }, () => performance.now());
    const first = limiter.admit();
    const abort = new AbortController();
    const handed = limiter.wait(5_000, abort.signal);
    const next = limiter.wait(2_000);
    const started = performance.now();
    // The release hands the place to the first waiter; it is cancelled before it runs again.
    if (first.ok) first.release();
    abort.abort(new Error('client cancelled'));
    await expect(handed).rejects.toThrow('client cancelled');
    const got = await next;
    expect(got.ok, JSON.stringify(got)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(limiter.active).toBe(1);
  });
});

describe('Limiter: the queue is served in order, and a place is never lost or doubled', () => {
  const now = () => performance.now();
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  // 20 a second, a burst of 1: a token every 50 ms.
  const rate20: Rate = { perSecond: 20, burst: 1, text: '20/s' };
  const releaseOf = (a: Admission) => {
    if (!a.ok) throw new Error(`not admitted: ${a.why}`);
    return a.release;
  };
  /** Each call takes its place, holds it 20 ms and gives it back; the order they got it in. */
  function inOrder() {
    const order: string[] = [];
    const take = (name: string, pending: Promise<Admission>) =>
      pending.then(
        async (a) => {
          order.push(a.ok ? name : `${name}:refused`);
          await sleep(20);
          if (a.ok) a.release();
        },
        () => order.push(`${name}:cancelled`),
      );
    return { order, take };
  }

  it('a waiter handed a place, cancelled while it sleeps for the rate, hands the place on', async () => {
    const limiter = new Limiter({ maxConcurrent: 1, rate: rate20 }, now);
    const first = limiter.admit();
    const abort = new AbortController();
    const handed = limiter.wait(5_000, abort.signal);
    const next = limiter.wait(3_000);
    const started = now();
    releaseOf(first)();
    await sleep(5);
    abort.abort(new Error('client cancelled'));
    await expect(handed).rejects.toThrow('client cancelled');
    expect((await next).ok).toBe(true);
    expect(now() - started).toBeLessThan(1_000);
    expect(limiter.active).toBe(1);
  });

  it('a waiter that leaves before its turn does not cost the one behind it its place in the queue', async () => {
    const limiter = new Limiter({ maxConcurrent: 1, rate: rate20 }, now);
    const { order, take } = inOrder();
    const held = limiter.admit();
    const abortB = new AbortController();
    const all = [take('A', limiter.wait(5_000)), take('B', limiter.wait(5_000, abortB.signal)), take('C', limiter.wait(5_000)), take('D', limiter.wait(5_000))];
    releaseOf(held)();
    await sleep(5);
    abortB.abort(new Error('gone'));
    await Promise.all(all);
    expect(order).toEqual(['B:cancelled', 'A', 'C', 'D']);
    expect(limiter.active).toBe(0);
  });

  it('a call arriving as a place frees waits behind the queue: the place goes to the call queued', async () => {
    const limiter = new Limiter({ maxConcurrent: 1 }, now);
    const { order, take } = inOrder();
    const held = limiter.admit();
    const queued = take('queued', limiter.wait(5_000));
    releaseOf(held)();
    const fresh = take('fresh', limiter.wait(5_000));
    expect(limiter.admit().ok).toBe(false);
    await Promise.all([queued, fresh]);
    expect(order).toEqual(['queued', 'fresh']);
  });

  it('a queue_ms past what a timer holds (2^31-1 ms) waits, not polls', async () => {
    const limiter = new Limiter({ maxConcurrent: 1 }, now);
    const { order, take } = inOrder();
    const held = limiter.admit();
    const all = [take('long', limiter.wait(3_000_000_000)), take('short', limiter.wait(5_000))];
    await sleep(20);
    releaseOf(held)();
    await Promise.all(all);
    expect(order).toEqual(['long', 'short']);
  });

  it('never more than max_concurrent in flight while waiters are cancelled around releases', async () => {
    const limiter = new Limiter({ maxConcurrent: 2 }, now);
    let peak = 0;
    const holders: (() => void)[] = [];
    const track = (pending: Promise<Admission>) =>
      pending.then(
        (a) => {
          peak = Math.max(peak, limiter.active);
          if (a.ok) holders.push(a.release);
        },
        () => undefined,
      );
    holders.push(releaseOf(limiter.admit()), releaseOf(limiter.admit()));
    const aborts = Array.from({ length: 10 }, () => new AbortController());
    const outcomes = aborts.map((c) => track(limiter.wait(2_000, c.signal)));
    for (let round = 0; round < 10; round++) {
      holders.shift()?.();
      // In the tick the place is handed over.
      aborts[round]!.abort(new Error('cancelled'));
      if (round % 3 === 0) holders.shift()?.();
      await sleep(1);
      expect(limiter.active).toBeLessThanOrEqual(2);
    }
    await Promise.all(outcomes);
    while (holders.length) holders.shift()!();
    expect(peak).toBeLessThanOrEqual(2);
    expect(limiter.active).toBe(0);
  });

  it('changed limits keep the calls in flight; a higher max_concurrent lets the queue in, a lower one holds it back', async () => {
    const kept = new KeptLimiters(now);
    const before = kept.of('s', { rate: '100/s', max_concurrent: 1 })!;
    const running = before.admit();
    // Only the rate changed: the call in flight still counts.
    const after = kept.of('s', { rate: '200/s', max_concurrent: 1 })!;
    expect(after).toBe(before);
    expect(after.admit().ok).toBe(false);
    const queued = after.wait(5_000);
    kept.of('s', { rate: '200/s', max_concurrent: 2 });
    expect((await queued).ok).toBe(true);
    expect(after.active).toBe(2);
    // Down to 1 with 2 in flight: a release does not hand a place to the next queued call.
    kept.of('s', { rate: '200/s', max_concurrent: 1 });
    const third = after.wait(300);
    releaseOf(running)();
    expect(await third).toMatchObject({ ok: false, why: expect.stringContaining('in flight for the whole wait') });
    expect(after.active).toBe(1);
  });

  it('limits removed while a call runs and one queues: the queued call goes in; restored before they end, the calls still count', async () => {
    const kept = new KeptLimiters(now);
    const limiter = kept.of('s', { max_concurrent: 1 })!;
    const running = releaseOf(await limiter.wait(0));
    const queued = limiter.wait(5_000);
    const started = now();
    expect(kept.of('s', undefined)).toBeUndefined();
    const inAtOnce = await queued;
    expect(inAtOnce.ok).toBe(true);
    expect(now() - started).toBeLessThan(1_000);
    // Back before the two calls ended: a third waits for them.
    const again = kept.of('s', { max_concurrent: 1 })!;
    expect(again).toBe(limiter);
    expect((await again.wait(0)).ok).toBe(false);
    running();
    releaseOf(inAtOnce)();
    expect((await again.wait(0)).ok).toBe(true);
  });

  it('limits removed from a limiter with nothing in flight forget it', () => {
    const kept = new KeptLimiters(now);
    const first = kept.of('s', { max_concurrent: 1 })!;
    expect(kept.of('s', undefined)).toBeUndefined();
    expect(kept.of('s', { max_concurrent: 1 })).not.toBe(first);
  });

  it('a call sleeping for the rate when a reload sets max_concurrent waits for a place under it', async () => {
    const kept = new KeptLimiters(now);
    const limiter = kept.of('s', { rate: '10/s' })!;
    const held: (() => void)[] = [];
    for (let i = 0; i < 10; i++) held.push(releaseOf(await limiter.wait(0)));
    // The burst is spent: it sleeps about 100 ms for a token.
    const sleeper = limiter.wait(1_000);
    kept.of('s', { rate: '10/s', max_concurrent: 10 });
    setTimeout(() => held.shift()!(), 300);
    const got = await sleeper;
    expect(got.ok).toBe(true);
    expect(limiter.active).toBeLessThanOrEqual(10);
    releaseOf(got)();
    for (const release of held) release();
    expect(limiter.active).toBe(0);
  });
});

describe('rateLimited: what an agent reads', () => {
  it.each([
    [
      { client: 'dev-agent' },
      '2 calls are already in flight (max_concurrent: 2)',
      'Client dev-agent: 2 calls are already in flight (max_concurrent: 2); the call was not run.',
    ],
    [{ client: 'dev-agent' }, 'over its rate of 3/min', 'Client dev-agent: over its rate of 3/min; the call was not run.'],
    [
      { server: 'everything', queueMs: 500 },
      '2 calls were in flight for the whole wait (max_concurrent: 2)',
      'Server everything: 2 calls were in flight for the whole wait (max_concurrent: 2) (waited 500 ms for a place); the call was not run.',
    ],
  ] as const)('%j: %s', (by, why, message) => {
    expect(rateLimited(by, { retryAfterMs: 100, why }).message).toBe(message);
  });
});
