import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, stopChild } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { modernRpc, TASKS_CAPABILITIES } from '../helpers/modern-rpc.js';
import { serveHttpChild } from '../helpers/serve.js';
import { FIXTURES, waitFor, writeConfig } from '../helpers/upstreams.js';
import { redisFor, startRedis, STORE_KEY } from '../support/redis-server.js';

/**
 * A cancelled call reaches its upstream server in every pairing of eras, and gives back its places
 * at once. The server (test/fixtures/tasks-server.mjs, on the real SDK, a session of the suite's pool) is started pinned to
 * 2025-11-25 (`old`, which hears notifications/cancelled) and to 2026-07-28 (`new`, told by its
 * own era's means), each counting the cancellations it heard; and twice more under
 * `upstream_limits` (`old_limited`, `new_limited`: `max_concurrent: 1`). A 2025 client cancels
 * with notifications/cancelled, a 2026 client by dropping its request or with tasks/cancel.
 * Alice may have one call in flight (`max_concurrent: 1`): once she cancelled, her next call is
 * admitted long before the cancelled one (30 s) would have ended. Bob, without limits, counts
 * (speaking alice's era: serve keeps one set of upstream connections for each).
 */

const SLOW = 30;
let served: InProcessServe;
let clients: Client[] = [];

/**
 * One serve for the file, its tests in turn: starting it (four upstream servers) was most of each
 * test's time. Counts are read before and after (relative), and every test ends with alice's place
 * and the limited servers' free again (each asserts so), so a test finds the serve as the last left it.
 */
beforeAll(async () => {
  const jobs = (protocol: string) => ({ ...FIXTURES.tasks, protocol });
  served = await serveHttpInProcess(
    writeConfig({
      mcp_servers: { old: jobs('2025-11-25'), new: jobs('2026-07-28'), old_limited: jobs('2025-11-25'), new_limited: jobs('2026-07-28') },
      serve: {
        clients: { alice: { token: 'alice-token', max_concurrent: 1 }, bob: { token: 'bob-token' } },
        upstream_limits: { old_limited: { max_concurrent: 1 }, new_limited: { max_concurrent: 1 } },
        tasks: { after_ms: 300 },
      },
    }),
  );
}, 60_000);
afterEach(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  clients = [];
});
afterAll(async () => {
  await served?.close();
});

type Era = 'legacy' | 'modern';
type Server = 'old' | 'new';

async function sdkClient(era: Era, who = 'alice'): Promise<Client> {
  const client = new Client({ name: `cancel-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  const transport = new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${who}-token` } } });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const rpc = (method: string, params: Record<string, unknown>) =>
  modernRpc(`${served.url}/mcp`, method, params, { token: 'alice-token', capabilities: TASKS_CAPABILITIES, client: 'cancel-tasks' });

/** What a counting tool of `server` answers (bob calls it: no limits). */
async function count(bob: Client, server: string, tool: 'started' | 'cancellations'): Promise<number> {
  const result = await bob.callTool({ name: `${server}__${tool}`, arguments: {} });
  return Number((result.content as { text: string }[])[0]!.text);
}

/** Polls a count until it reaches `expected` (within 10 s, a third of the slow call); the last count seen. */
async function countReaches(bob: Client, server: string, tool: 'started' | 'cancellations', expected: number): Promise<number> {
  let last = -1;
  await waitFor(async () => (last = await count(bob, server, tool)) >= expected, 10_000, 100);
  return last;
}

/** Whether alice's next call to `server` is refused (RATE_LIMITED: her place, or the server's, is taken). */
async function aliceRefused(alice: Client, server: string): Promise<boolean> {
  const result = await alice.callTool({ name: `${server}__greet`, arguments: { name: 'Ann' } });
  return result.isError === true && JSON.stringify(result.content).includes('RATE_LIMITED');
}

/** A call of `client`'s to the slow tool, cancelled by the returned function; `ended` says how it ended. */
function slowCall(client: Client, server: string) {
  const abort = new AbortController();
  const ended = client.callTool({ name: `${server}__slow_compute`, arguments: { seconds: SLOW } }, { signal: abort.signal, timeout: 60_000 }).then(
    (result) => `answered ${JSON.stringify(result.content).slice(0, 200)}`,
    (error: Error) => error.message,
  );
  return { ended, cancel: () => abort.abort('the person changed their mind') };
}

/**
 * A slow call of alice's that holds her place and the server's: her next call is refused. One of
 * those checks may itself hold the place when the slow call comes (then refused): it is made again,
 * the check waiting longer each time.
 */
async function runningSlowCall(alice: Client, next: Client, server: string): Promise<ReturnType<typeof slowCall>> {
  // Both connections made first (a first call starts the server, and holds the place meanwhile).
  for (const client of [next, alice]) await client.callTool({ name: `${server}__greet`, arguments: { name: 'Ann' } });
  const ends: string[] = [];
  for (let attempt = 0; attempt < 8; attempt++) {
    const call = slowCall(alice, server);
    let ended = false;
    void call.ended.then((how) => ((ended = true), ends.push(how)));
    // A 2026 request takes longer to be admitted than a 2025 one: the check comes after it, later each time.
    await new Promise((resolve) => setTimeout(resolve, 300 * (attempt + 1)));
    if (await waitFor(async () => ended || (await aliceRefused(next, server)), 10_000, 300)) if (!ended) return call;
  }
  throw new Error(`no slow call of alice's to ${server} ran: ${ends.join('; ')}`);
}

describe.each([
  ['legacy', 'old'],
  ['legacy', 'new'],
  ['modern', 'old'],
  ['modern', 'new'],
] as [Era, Server][])('a %s client, a server pinned as %s', (era, server) => {
  it('a call the client drops is cancelled upstream: the server hears it', async () => {
    // serve keeps one set of upstream connections per era of clients: bob counts on alice's.
    const [alice, bob] = [await sdkClient(era), await sdkClient(era, 'bob')];
    const [started, cancelled] = [await count(bob, server, 'started'), await count(bob, server, 'cancellations')];
    const call = slowCall(alice, server);
    // Cancelled once the server runs it (its own count says so), not before it was sent.
    expect(await countReaches(bob, server, 'started', started + 1)).toBe(started + 1);
    call.cancel();
    expect(await call.ended).not.toMatch(/^answered/);
    expect(await countReaches(bob, server, 'cancellations', cancelled + 1)).toBe(cancelled + 1);
  }, 60_000);

  it("its places (the client's max_concurrent, the server's upstream_limits) are free at once", async () => {
    const [alice, bob] = [await sdkClient(era), await sdkClient(era, 'bob')];
    const next = await sdkClient('legacy');
    const limited = `${server}_limited`;
    const cancelled = await count(bob, limited, 'cancellations');
    const call = await runningSlowCall(alice, next, limited);
    call.cancel();
    expect(await call.ended).not.toMatch(/^answered/);
    // ...and given back when the server is told, not when it would have ended.
    expect(await waitFor(async () => !(await aliceRefused(next, limited)), 10_000, 100)).toBe(true);
    // The server heard this cancellation before the test ends: a later test's count is its own, none of this one's arriving late.
    expect(await countReaches(bob, limited, 'cancellations', cancelled + 1)).toBe(cancelled + 1);
  }, 60_000);
});

describe.each(['old', 'new'] as Server[])('a 2026 client that cancels its task (tasks/cancel), a server pinned as %s', (server) => {
  it('the server hears it, and the places are free for the next call at once', async () => {
    const [bob, next] = [await sdkClient('modern', 'bob'), await sdkClient('legacy')];
    const cancelled = await count(bob, server, 'cancellations');
    const limitedBefore = await count(bob, `${server}_limited`, 'cancellations');
    for (const target of [server, `${server}_limited`]) {
      const created = await rpc('tools/call', { name: `${target}__slow_compute`, arguments: { seconds: SLOW } });
      expect(created.result, JSON.stringify(created)).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = String(created.result!.taskId);
      if (target !== server) expect(await aliceRefused(next, target), JSON.stringify(await rpc('tasks/get', { taskId }))).toBe(true);
      expect((await rpc('tasks/cancel', { taskId })).result).toEqual({ resultType: 'complete' });
      expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
      if (target !== server) expect(await waitFor(async () => !(await aliceRefused(next, target)), 10_000, 100)).toBe(true);
    }
    expect(await countReaches(bob, server, 'cancellations', cancelled + 1)).toBe(cancelled + 1);
    expect(await countReaches(bob, `${server}_limited`, 'cancellations', limitedBefore + 1)).toBe(limitedBefore + 1);
  }, 60_000);
});

describe('a task waiting for its answers (input_required) on a server pinned as old, cancelled', () => {
  it('the bridged call parked for the answers is cancelled at the server too', async () => {
    const bob = await sdkClient('modern', 'bob');
    const cancelled = await count(bob, 'old', 'cancellations');
    const created = await rpc('tools/call', { name: 'old__confirm_delete', arguments: { filename: 'kept.txt' } });
    expect(created.result, JSON.stringify(created)).toMatchObject({ resultType: 'task' });
    const taskId = String(created.result!.taskId);
    expect(await waitFor(async () => (await rpc('tasks/get', { taskId })).result?.status === 'input_required', 10_000, 100)).toBe(true);
    expect((await rpc('tasks/cancel', { taskId })).result).toEqual({ resultType: 'complete' });
    expect(await countReaches(bob, 'old', 'cancellations', cancelled + 1)).toBe(cancelled + 1);
  }, 60_000);
});

const withRedis = redisFor('tasks/cancel sent to the other replica');
describe.runIf(withRedis)('replicas sharing serve.store: tasks/cancel sent to the other replica, a server pinned as old', () => {
  it('reaches the server where the task runs, and frees the places there at once', async () => {
    const redis = await startRedis();
    const replicas: { url: string }[] = [];
    let here: InProcessServe | undefined;
    let there: Awaited<ReturnType<typeof serveHttpChild>> | undefined;
    try {
      const config = writeConfig({
        mcp_servers: { old: { ...FIXTURES.tasks, protocol: '2025-11-25' } },
        serve: {
          clients: { alice: { token: 'alice-token', max_concurrent: 1 }, bob: { token: 'bob-token' } },
          // The quick tools are answered as they are, even while the server starts.
          tasks: { after_ms: 300, tools: { old__cancellations: 30_000, old__greet: 30_000 } },
          store: { url: redis.url, lease_ms: 5000, key: STORE_KEY },
        },
      });
      // The replica where the task runs in this process, the one that is sent its cancel in a
      // process of its own: what reaches the task crosses between processes through the store
      // alone, as between two machines (a second serve process would cost a start for nothing more).
      [here, there] = await Promise.all([serveHttpInProcess(config, { env: cleanEnv() }), serveHttpChild(config)]);
      replicas.push(here, there);
      const on = (i: number, who = 'alice', method = 'tools/call', params: Record<string, unknown> = {}) =>
        modernRpc(`${replicas[i]!.url}/mcp`, method, params, { token: `${who}-token`, capabilities: TASKS_CAPABILITIES, client: 'cancel-replicas' });
      const cancellations = async () =>
        Number(((await on(0, 'bob', 'tools/call', { name: 'old__cancellations', arguments: {} })).result!.content as { text: string }[])[0]!.text);
      const before = await cancellations();
      const created = await on(0, 'alice', 'tools/call', { name: 'old__slow_compute', arguments: { seconds: SLOW } });
      expect(created.result, JSON.stringify(created)).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = String(created.result!.taskId);
      expect((await on(1, 'alice', 'tasks/cancel', { taskId })).result).toEqual({ resultType: 'complete' });
      expect(await waitFor(async () => (await cancellations()) === before + 1, 10_000, 100)).toBe(true);
      // Alice's place (kept in the store) is hers again, on either replica, long before the call would have ended.
      const greeted = async (i: number) => (await on(i, 'alice', 'tools/call', { name: 'old__greet', arguments: { name: 'Ann' } })).result?.isError !== true;
      expect(await waitFor(() => greeted(1), 10_000, 100)).toBe(true);
    } finally {
      await Promise.allSettled([here?.close(), there && stopChild(there.child)]);
      await redis.stop();
    }
  }, 90_000);
});
