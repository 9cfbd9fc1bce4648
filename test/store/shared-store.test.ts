import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRate } from '../../src/core/limits.js';
import { createLogger } from '../../src/core/logger.js';
import { maskedUrl, SharedStore } from '../../src/store/shared-store.js';
import { redisFor, startRedis, STORE_KEY, type RunningRedis } from '../support/redis-server.js';

/** The store's limits against a real redis-server: each script's verdicts, and places that outlive nobody. */

const logger = createLogger('error', () => {});

describe('the store address shown', () => {
  it.each([
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['redis://:s3cret@cache.internal:6380/2', 'redis://:***@cache.internal:6380/2'],
    ['rediss://user:pw@host:6379', 'rediss://user:***@host:6379'],
    ['not a url', 'the configured address'],
  ])('%s is shown as %s', (url, shown) => expect(maskedUrl(url)).toBe(shown));
});

const withRedis = redisFor('limits in a real store (test/store)');

describe.skipIf(!withRedis)('limits in a real store', () => {
  let redis: RunningRedis;
  const stores: SharedStore[] = [];
  const open = async (leaseMs?: number) => {
    const store = await SharedStore.open({ url: redis.url, key: STORE_KEY, prefix: `t${stores.length}${Date.now()}`, ...(leaseMs ? { leaseMs } : {}) }, logger);
    stores.push(store);
    return store;
  };
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.allSettled(stores.map((s) => s.close()));
    await redis?.stop();
  });

  it('a bucket of 2/s gives its burst, then says when the next token is due, then gives it', async () => {
    const store = await open();
    const rate = parseRate('2/s')!;
    const verdicts = [];
    for (let i = 0; i < 3; i++) verdicts.push(await store.admit('client:a', { rate }));
    expect(verdicts.map((v) => v.ok)).toEqual([true, true, false]);
    const refused = verdicts[2]!;
    if (refused.ok) throw new Error('unreachable');
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(500);
    await new Promise((r) => setTimeout(r, refused.retryAfterMs + 20));
    expect((await store.admit('client:a', { rate })).ok).toBe(true);
  });

  it('places in flight are counted across stores (replicas) and given back on release', async () => {
    const prefix = `shared${Date.now()}`;
    const one = await SharedStore.open({ url: redis.url, key: STORE_KEY, prefix }, logger);
    const two = await SharedStore.open({ url: redis.url, key: STORE_KEY, prefix }, logger);
    stores.push(one, two);
    const first = await one.admit('server:s', { maxConcurrent: 2 });
    const second = await two.admit('server:s', { maxConcurrent: 2 });
    const third = await one.admit('server:s', { maxConcurrent: 2 });
    expect([first.ok, second.ok, third.ok]).toEqual([true, true, false]);
    if (first.ok) first.release();
    await new Promise((r) => setTimeout(r, 50));
    expect((await two.admit('server:s', { maxConcurrent: 2 })).ok).toBe(true);
  });

  it("a replica that dies holding a place frees it within the lease; a live one's place is renewed past it", async () => {
    const prefix = `lease${Date.now()}`;
    const dying = await SharedStore.open({ url: redis.url, key: STORE_KEY, prefix, leaseMs: 400 }, logger);
    const living = await SharedStore.open({ url: redis.url, key: STORE_KEY, prefix, leaseMs: 400 }, logger);
    stores.push(living);
    const held = await dying.admit('client:d', { maxConcurrent: 1 });
    expect(held.ok).toBe(true);
    await dying.close(); // no release, no renewal: as a SIGKILL leaves it
    expect((await living.admit('client:d', { maxConcurrent: 1 })).ok).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    const taken = await living.admit('client:d', { maxConcurrent: 1 });
    expect(taken.ok).toBe(true);
    // Held by a live store: still held after three leases.
    await new Promise((r) => setTimeout(r, 1200));
    expect((await living.admit('client:d', { maxConcurrent: 1 })).ok).toBe(false);
    if (taken.ok) taken.release();
  });

  it('waits for a place up to its queue time, and gets one freed meanwhile', async () => {
    const store = await open();
    const held = await store.admit('server:q', { maxConcurrent: 1 });
    setTimeout(() => held.ok && held.release(), 150);
    const started = performance.now();
    const waited = await store.wait('server:q', { maxConcurrent: 1 }, 2000);
    expect(waited.ok).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    const refused = await store.wait('server:q', { maxConcurrent: 1 }, 100);
    expect(refused.ok).toBe(false);
  });
});
