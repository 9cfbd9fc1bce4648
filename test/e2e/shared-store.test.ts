import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { serveHttpAsCli } from '../helpers/in-process.js';
import { freePort, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';
import { redisFor, startRedis, STORE_KEY, type RunningRedis } from '../support/redis-server.js';
import { startStoreReplicas, type StoreReplicas } from '../support/store-replicas.js';

/**
 * Two replicas of serve --http sharing their limits in a real redis-server (serve.store), with
 * requests sent to them in turn as a round-robin balancer would: a client's rate and
 * concurrency, and an upstream's, hold across both; the store lost mid-run refuses limited calls
 * (never runs them unlimited), the rest goes on, /health says so, and its return is picked up.
 */

const withRedis = redisFor('replicas sharing a store');

type Era = '2025-11-25' | '2026-07-28';

describe.skipIf(!withRedis)('replicas sharing serve.store', () => {
  // The two suites run at once: the second starts a serve and a redis-server of its own (on a port
  // free when it asked); the first's tests share two replicas and a store, and run in turn.
  describe.concurrent('two replicas and their store', () => {
    let redis: RunningRedis;
    let replicas: StoreReplicas['replicas'] = [];
    const opened: Client[] = [];

    let fleet: StoreReplicas | undefined;

    beforeAll(async () => {
      fleet = await startStoreReplicas((url) => ({
        mcp_servers: { everything: SERVERS.everything, memory: SERVERS.memory },
        serve: {
          exposure: 'direct',
          store: { url, prefix: 'test', key: STORE_KEY },
          clients: {
            dave: { token: 'dave-token', rate: '3/min' },
            carol: { token: 'carol-token', max_concurrent: 2 },
            erin: { token: 'erin-token', rate: '100/s' },
            free: { token: 'free-token' },
          },
          upstream_limits: { everything: { max_concurrent: 1 } },
        },
      }));
      ({ redis, replicas } = fleet);
    }, 60_000);
    afterAll(async () => {
      await Promise.allSettled(opened.map((c) => c.close()));
      await fleet?.stop();
    });

    async function connect(token: string, replica: number, era: Era = '2025-11-25') {
      const client = new Client({ name: `agent-${token}`, version: '1' }, era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${replicas[replica]!.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      opened.push(client);
      return client;
    }
    const call = (client: Client, name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }, { timeout: 30_000 }) as Promise<CallToolResult>;
    /** What came back and what each replica said, for a failed assertion's message. */
    const told = (results: unknown) => `${JSON.stringify(results)}\n${replicas.map((r, i) => `--- replica ${i} stderr:\n${r.stderr()}`).join('\n')}`;
    const errorOf = (r: CallToolResult) =>
      (r.structuredContent as { error?: { code: string; message: string; details?: Record<string, unknown> } } | undefined)?.error;

    it.sequential('a rate of 3/min is 3 across both replicas and both eras, in turn', async () => {
      const clients = await Promise.all([connect('dave-token', 0), connect('dave-token', 1, '2026-07-28')]);
      const results: CallToolResult[] = [];
      for (let i = 0; i < 10; i++) results.push(await call(clients[i % 2]!, 'everything__echo', { message: `turn ${i}` }));
      const answered = results.filter((r) => !r.isError);
      const refused = results.filter((r) => errorOf(r)?.code === 'RATE_LIMITED');
      expect([answered.length, refused.length], told(results)).toEqual([3, 7]);
      expect(errorOf(refused[0]!)?.message, told(results)).toContain('across replicas');
      expect(errorOf(refused[0]!)?.details, told(results)).toMatchObject({ client: 'dave', retry_after_ms: expect.any(Number) });
    }, 60_000);

    it.sequential('max_concurrent 2 counts the calls in flight on both replicas', async () => {
      const clients = await Promise.all([connect('carol-token', 0), connect('carol-token', 1)]);
      // Settled, not all: a call that timed out is reported with the others and what each replica said.
      const settled = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => call(clients[i % 2]!, 'everything__trigger-long-running-operation', { duration: 6, steps: 1 })),
      );
      const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [`call ${i} (replica ${i % 2}): ${String(s.reason)}`] : []));
      expect(failed, told(settled)).toEqual([]);
      const results = settled.map((s) => (s as PromiseFulfilledResult<CallToolResult>).value);
      // The upstream's own limit (max_concurrent 1, no queue) refuses too: what passes both is one at a time
      // (each call lasts long enough that all six are asked while the first runs, on a loaded machine too).
      const byCode = (code: string) => results.filter((r) => errorOf(r)?.code === code).length;
      expect(results.filter((r) => !r.isError).length, told(results)).toBe(1);
      expect(byCode('RATE_LIMITED'), told(results)).toBe(5);
      const messages = results.map((r) => errorOf(r)?.message ?? '').join('\n');
      expect(messages, told(results)).toContain('Client carol: 2 calls are already in flight (max_concurrent: 2, across replicas)');
      expect(messages, told(results)).toContain('Server everything: 1 calls are already in flight (max_concurrent: 1, across replicas)');
    }, 60_000);

    it.sequential('the store lost: a limited call is refused naming it, others go on, /health says so; its return is picked up', async () => {
      const erin = await connect('erin-token', 0);
      const free = await connect('free-token', 1);
      const before = await call(erin, 'everything__echo', { message: 'before' });
      expect(before.isError, told(before)).toBeFalsy();
      await redis.stop();
      const started = Date.now();
      const lost = await call(erin, 'everything__echo', { message: 'while lost' });
      expect(Date.now() - started, told(lost)).toBeLessThan(5_000);
      expect(errorOf(lost)?.code, told(lost)).toBe('UNAVAILABLE');
      // The agent is told what to do, in words of the store, never the client library's internals.
      expect(errorOf(lost)?.message, told(lost)).toBe(
        `The shared store (${redis.url}) is unreachable; the call was refused so limits hold. Retry shortly or ask the operator to check serve.store.`,
      );
      // A call with no limit of its own to an upstream with one is refused too; one without any goes on.
      const limitedUpstream = await call(free, 'everything__echo', { message: 'x' });
      expect(errorOf(limitedUpstream)?.code, told(limitedUpstream)).toBe('UNAVAILABLE');
      const unlimited = await call(free, 'memory__read_graph', {});
      expect(unlimited.isError, told(unlimited)).toBeFalsy();
      const health = (await (await fetch(`${replicas[0]!.url}/health`)).json()) as { status: string };
      expect(health.status, told(health)).toBe('degraded');
      await redis.start();
      let after: CallToolResult | undefined;
      const answered = async () => !(after = await call(erin, 'everything__echo', { message: 'after' })).isError;
      expect(await waitFor(answered, 15_000, 250), told(after)).toBe(true);
      const healthAfter = (await (await fetch(`${replicas[0]!.url}/health`)).json()) as { status: string };
      expect(healthAfter.status, told(healthAfter)).toBe('ok');
      // The operator reads the loss and the return, once each, on each replica.
      for (const replica of replicas) {
        const said = replica.stderr();
        expect(said.split(`serve.store (${redis.url}) is lost`).length - 1, said).toBe(1);
        expect(said.split(`serve.store (${redis.url}) answers again`).length - 1, said).toBe(1);
      }
    }, 60_000);
  });

  describe.concurrent('a store unreachable at start', () => {
    it('a store that cannot be reached at start stops serve, saying so; required: false starts it anyway', async () => {
      const port = await freePort();
      const closed = `redis://127.0.0.1:${port}`;
      const strict = writeConfig({ mcp_servers: {}, serve: { store: { url: closed, key: STORE_KEY } } });
      const r = await runCli(['serve', '--http', '--port', '0', '--config', strict]);
      expect(r.code, r.stderr).not.toBe(0);
      expect(r.stderr).toContain(`serve.store: cannot reach ${closed}`);
      const lenient = writeConfig({ mcp_servers: {}, serve: { store: { url: closed, required: false, key: STORE_KEY } } });
      // Started, it is asked only answers and what it says: in this process (its exit above is a process's).
      const served = await serveHttpAsCli(lenient);
      const up = { url: served.url, stderr: () => served.lines.join('\n') };
      try {
        expect(up.stderr()).toContain('serve.store.required: false');
        const health = (await (await fetch(`${up.url}/health`)).json()) as { status: string };
        expect(health.status, `${JSON.stringify(health)}\n${up.stderr()}`).toBe('degraded');
        // The store comes up later: serve picks it up by itself.
        const late = await startRedis(port);
        try {
          const ok = async () => ((await (await fetch(`${up.url}/health`)).json()) as { status: string }).status === 'ok';
          expect(await waitFor(ok, 15_000, 200), up.stderr()).toBe(true);
        } finally {
          await late.stop();
        }
      } finally {
        await served.close();
      }
    }, 30_000);
  });
});
