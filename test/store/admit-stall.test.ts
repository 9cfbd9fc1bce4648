import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.js';
import { SharedStore } from '../../src/store/shared-store.js';
import { waitFor } from '../helpers/upstreams.js';
import { redisFor, startRedis, STORE_KEY, type RunningRedis } from '../support/redis-server.js';

/**
 * A store that stalls (its process stopped, the connection open): a replica on a loaded host
 * sees the same when its own event loop pauses past a command's timeout. A short stall is waited
 * out; an admit that timed out gives back the place its late answer took, so an upstream with
 * max_concurrent 1 is not shut for the whole lease by a call that never ran.
 */

const logger = createLogger('error', () => {});
const withRedis = redisFor('a stalled store (test/store/admit-stall)');

describe.skipIf(!withRedis)('an admit while the store stalls', () => {
  let redis: RunningRedis;
  const stores: SharedStore[] = [];
  // A lease far longer than the test's deadlines: a place left behind would outlast them.
  const open = async () => {
    const store = await SharedStore.open({ url: redis.url, key: STORE_KEY, prefix: `stall${stores.length}`, leaseMs: 120_000 }, logger);
    stores.push(store);
    return store;
  };
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    redis?.signal('SIGCONT');
    await Promise.allSettled(stores.map((s) => s.close()));
    await redis?.stop();
  });

  it('a stall shorter than the timeout (1.2 s, as a busy replica may pause) is waited out, not called a lost store', async () => {
    const store = await open();
    redis.signal('SIGSTOP');
    const resumed = new Promise<void>((resolve) => setTimeout(() => (redis.signal('SIGCONT'), resolve()), 1_200));
    const admission = await store.admit('server:s', { maxConcurrent: 1 }).catch((error: Error) => error);
    await resumed;
    expect(admission, String(admission)).toMatchObject({ ok: true });
    if ('release' in admission) admission.release();
  }, 30_000);

  it('an admit that timed out gives back the place its late answer took', async () => {
    const store = await open();
    redis.signal('SIGSTOP');
    let refused: unknown;
    try {
      refused = await store.admit('server:s', { maxConcurrent: 1 }).catch((error: { code?: string }) => error.code);
    } finally {
      redis.signal('SIGCONT');
    }
    expect(refused).toBe('UNAVAILABLE');
    // The script ran once the store went on, taking a place for a call that was refused: the next
    // admit finds it free well within the lease (120 s) that would otherwise keep it.
    let last: unknown;
    const free = async () => {
      last = await store.admit('server:s', { maxConcurrent: 1 }).catch((error: Error) => error.message);
      if (typeof last === 'object' && last && 'release' in last) (last as { release(): void }).release();
      return typeof last === 'object' && last !== null && (last as { ok: boolean }).ok;
    };
    expect(await waitFor(free, 20_000, 100), JSON.stringify(last)).toBe(true);
  }, 60_000);
});
