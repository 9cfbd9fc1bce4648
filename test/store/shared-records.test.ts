import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.js';
import { SharedStore, type SharedTaskRecord } from '../../src/store/shared-store.js';
import { freePort, waitFor } from '../helpers/upstreams.js';
import { redisFor, startRedis, STORE_KEY, type RunningRedis } from '../support/redis-server.js';

/**
 * Against a real redis-server: what confers authority in the store (a task's record and its owner,
 * a question of approval) is taken only as a replica signed it, for the key it is under; the key is
 * required; places held are put back after a restart; an agent is told of a lost store in words of
 * the store.
 */

const said: string[] = [];
const logger = createLogger('warn', (line) => void said.push(line));

describe('serve.store.key is required', () => {
  it.each([
    [undefined, 'serve.store.key is not set'],
    ['too-short', 'serve.store.key is 9 characters long'],
  ])('%s: refused before the store is reached, saying how to make one', async (key, message) => {
    const closed = `redis://127.0.0.1:${await freePort()}`;
    const refused = SharedStore.open({ url: closed, key }, logger);
    await expect(refused).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining(message),
      hint: expect.stringContaining('openssl rand -base64 32'),
    });
    await expect(SharedStore.openLater({ url: closed, key }, logger)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });
});

const withRedis = redisFor('signed records in a real store (test/store)');

describe.skipIf(!withRedis)('signed records in a real store', () => {
  let redis: RunningRedis;
  let raw: Redis;
  const stores: SharedStore[] = [];
  const open = async (prefix: string, key = STORE_KEY) => {
    const store = await SharedStore.open({ url: redis.url, key, prefix, leaseMs: 3000 }, logger);
    stores.push(store);
    return store;
  };
  beforeAll(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    raw.on('error', () => undefined); // the store is restarted below
    await raw.connect();
  });
  afterAll(async () => {
    raw?.disconnect();
    await Promise.allSettled(stores.map((s) => s.close()));
    await redis?.stop();
  });
  const record: SharedTaskRecord = { owner: 'client:alice', holder: 'h', task: { taskId: 't1', status: 'working' } };

  it("a task's record: read as written; written by the store alone, moved, altered or under another key, not at all", async () => {
    const store = await open('rec');
    await store.saveTask('t1', record, 60_000);
    expect(await store.loadTask('t1')).toEqual(record);
    // Written by whoever can reach the store: bob's task, by its record.
    await raw.set('rec:{task:t2}', JSON.stringify({ ...record, owner: 'client:bob' }));
    expect(await store.loadTask('t2')).toBeUndefined();
    // A replica's record copied under another task's key.
    await raw.set('rec:{task:t3}', (await raw.get('rec:{task:t1}'))!);
    expect(await store.loadTask('t3')).toBeUndefined();
    // Its owner altered in place.
    const envelope = JSON.parse((await raw.get('rec:{task:t1}'))!) as { b: string };
    await raw.set('rec:{task:t1}', JSON.stringify({ ...envelope, b: JSON.stringify({ ...record, owner: 'client:bob' }) }));
    expect(await store.loadTask('t1')).toBeUndefined();
    // A gateway with another key reads none of this one's records.
    await store.saveTask('t4', record, 60_000);
    expect(await (await open('rec', 'another-key-of-more-than-32-chars-Q7')).loadTask('t4')).toBeUndefined();
    expect(said.join('\n')).toContain('serve.store: dropped the record of task t2: not signed by a replica');
  });

  it('a question of approval: taken once as asked; one the store alone holds approves nothing', async () => {
    const store = await open('ask');
    await store.openQuestion('s1', 'digest-of-the-call', 60_000);
    expect(await store.takeQuestion('s1')).toBe('digest-of-the-call');
    expect(await store.takeQuestion('s1')).toBeUndefined();
    await raw.set('ask:{question:s2}', 'digest-of-server_add');
    expect(await store.takeQuestion('s2')).toBeUndefined();
  });

  it('a place held across a restart of the store is put back, and counted by the other replica; its loss and return are said once', async () => {
    const [one, two] = [await open('restart'), await open('restart')];
    const held = await one.admit('client:bob', { maxConcurrent: 1 });
    expect(held.ok).toBe(true);
    said.length = 0;
    await redis.stop();
    await expect(two.admit('client:bob', { maxConcurrent: 1 })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: `The shared store (${redis.url}) is unreachable; the call was refused so limits hold. Retry shortly or ask the operator to check serve.store.`,
    });
    await redis.start();
    let verdict: Awaited<ReturnType<SharedStore['admit']>> | undefined;
    const back = await waitFor(
      async () => {
        verdict = await two.admit('client:bob', { maxConcurrent: 1 }).catch(() => undefined);
        return verdict !== undefined;
      },
      20_000,
      100,
    );
    expect(back).toBe(true);
    expect(verdict!.ok).toBe(false);
    // One line each from every store open on it (those of the tests above too), however long it was away.
    expect(said.filter((line) => line.includes('is lost'))).toHaveLength(stores.length);
    expect(await waitFor(() => said.filter((line) => line.includes(') answers again')).length === stores.length, 10_000), said.join('')).toBe(true);
    expect(said.join('\n')).toContain('put back the 1 places its calls hold');
    if (held.ok) held.release();
    expect(await waitFor(async () => (await two.admit('client:bob', { maxConcurrent: 1 })).ok, 10_000)).toBe(true);
  }, 60_000);
});
