import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVERS, waitFor } from '../helpers/upstreams.js';
import { redisFor, STORE_KEY, type RunningRedis } from '../support/redis-server.js';
import { startStoreReplicas, type StoreReplicas } from '../support/store-replicas.js';

/**
 * The store restarted under load (redis-server without persistence, so it comes back empty):
 * bob has max_concurrent 3 and three calls in flight on r1; after the restart r2 still refuses
 * his fourth, fifth and sixth, because r1 put back the places its calls hold. Once those calls
 * end, r2 admits him again. The three calls are server-everything's elicitation tool, held open
 * until bob answers: in flight for exactly as long as the test needs, not for a fixed duration.
 */

const withRedis = redisFor('a store restarted under load');

describe.skipIf(!withRedis)('a store restart under load', () => {
  let redis: RunningRedis;
  let replicas: StoreReplicas['replicas'] = [];
  const opened: Client[] = [];

  let fleet: StoreReplicas | undefined;

  beforeAll(async () => {
    fleet = await startStoreReplicas((url) => ({
      mcp_servers: { everything: SERVERS.everything },
      serve: { exposure: 'direct', store: { url, key: STORE_KEY }, clients: { bob: { token: 'bob-token', max_concurrent: 3 } } },
    }));
    ({ redis, replicas } = fleet);
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled(opened.map((c) => c.close()));
    await fleet?.stop();
  });

  async function connect(replica: number, capabilities = {}) {
    const client = new Client({ name: 'bob', version: '1' }, { capabilities });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${replicas[replica]!.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer bob-token' } } }),
    );
    opened.push(client);
    return client;
  }
  const call = (client: Client, name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }, { timeout: 90_000 }) as Promise<CallToolResult>;
  const errorOf = (r: CallToolResult) => (r.structuredContent as { error?: { code: string; message: string } } | undefined)?.error;
  const full = (r: CallToolResult) => errorOf(r)?.code === 'RATE_LIMITED' && errorOf(r)!.message.includes('3 calls are already in flight');

  it('max_concurrent 3 holds across the restart: r2 refuses three more while r1 runs three', async () => {
    // r1's client answers each elicitation only when the test lets it: its call holds its place until then.
    const [r1, r2] = [await connect(0, { elicitation: {} }), await connect(1)];
    const answers: (() => void)[] = [];
    const asked = { count: 0 };
    r1.setRequestHandler(
      'elicitation/create',
      () =>
        new Promise((resolve) => {
          asked.count++;
          answers.push(() => resolve({ action: 'decline' }));
        }),
    );
    // Each of the three says it runs (its question reaches bob) once it holds its place.
    const long = Array.from({ length: 3 }, () => {
      const done = call(r1, 'everything__trigger-elicitation-request', {});
      done.catch(() => undefined); // a failure is asserted below; closing the client must not reject it unheard
      return done;
    });
    expect(await waitFor(() => asked.count === 3, 30_000)).toBe(true);
    expect(full(await call(r2, 'everything__echo', { message: 'probe' }))).toBe(true);

    await redis.stop();
    await redis.start();
    // The first answer r2 gives once the store is back is a refusal for the cap, not an admission.
    let first: CallToolResult | undefined;
    const back = await waitFor(
      async () => {
        first = await call(r2, 'everything__echo', { message: 'after the restart' });
        return errorOf(first)?.code !== 'UNAVAILABLE';
      },
      20_000,
      100,
    );
    expect(back).toBe(true);
    expect(full(first!), JSON.stringify(first)).toBe(true);
    const more = await Promise.all(Array.from({ length: 3 }, (_, i) => call(r2, 'everything__echo', { message: `more ${i}` })));
    expect(more.map(full)).toEqual([true, true, true]);
    expect(replicas[0]!.stderr()).toMatch(/it restarted and kept nothing: this replica put back the 3 places its calls hold/);

    // The three end as they would have (bob answers now); their places are given back and bob is admitted again.
    for (const answer of answers) answer();
    const ended = await Promise.all(long);
    expect(ended.map((r) => r.isError ?? false)).toEqual([false, false, false]);
    expect(ended.map((r) => JSON.stringify(r.content))).toEqual(Array(3).fill(expect.stringContaining('User declined')));
    expect(await waitFor(async () => !(await call(r2, 'everything__echo', { message: 'later' })).isError, 20_000, 200)).toBe(true);
  }, 120_000);
});
