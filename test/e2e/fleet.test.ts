import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetReplica } from '../../src/mcp/http/health-view.js';
import { ROOT, cleanEnv, runCommand, stopChild } from '../helpers/cli.js';
import { type InProcessServe, serveHttpAsCli, serveHttpInProcess } from '../helpers/in-process.js';
import { serveHttpChild } from '../helpers/serve.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';
import { redisFor, startRedis, STORE_KEY, type RunningRedis } from '../support/redis-server.js';

/**
 * A view of the fleet: two replicas of serve --http sharing a real redis-server each keep a
 * record there; the admin's /health lists both and says degraded, with the reason, when one of
 * them serves another config or is no longer heard from; `mcpkit gateway status` prints it; a
 * named client never sees it. Without a store, the fleet is the replica that answers.
 */

const withRedis = redisFor('the fleet of replicas');

type Health = { status: string; reasons?: string[]; upstreams?: unknown; replicas?: FleetReplica[] };
const health = async (url: string, token?: string): Promise<Health> =>
  (await fetch(`${url}/health`, token ? { headers: { authorization: `Bearer ${token}` } } : {})).json() as Promise<Health>;
const status = (url: string, token: string | undefined, ...more: string[]) =>
  runCommand(['gateway', 'status', url, ...more], { env: cleanEnv(token ? { MCPKIT_TOKEN: token } : {}) });

/** The serve section as docs/guide/scaling-out.md writes it for replicas: the replica id and the admin's token from variables. */
const serveSection = (store: object) => ({
  token: '${ADMIN_TOKEN}',
  replica_id: '${REPLICA_ID}',
  store,
  clients: { 'ci-bot': { token: 'ci-token' } },
});

describe.runIf(withRedis)('the fleet, with serve.store', () => {
  let redis: RunningRedis;
  const configs: string[] = [];
  // r1 serves in this process (what is asked of it is its /health and gateway status); r2, the
  // replica that dies, is a process of its own, for SIGKILL to end it without a word to the store.
  let r1: InProcessServe | undefined;
  let r2: Awaited<ReturnType<typeof serveHttpChild>> | undefined;
  let replicas: { url: string }[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const store = { url: redis.url, prefix: 'fleet', lease_ms: 1500, key: STORE_KEY };
    // Each replica its own copy of one config, as on two machines.
    for (let i = 0; i < 2; i++) configs.push(writeConfig({ mcp_servers: {}, serve: serveSection(store) }));
    const env = (id: string) => ({ REPLICA_ID: id, ADMIN_TOKEN: 'admin-token' });
    // The version the process says it is (its package's), which the replicas compare.
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    [r1, r2] = await Promise.all([serveHttpAsCli(configs[0]!, { version, env: cleanEnv(env('r1')) }), serveHttpChild(configs[1]!, [], env('r2'))]);
    replicas = [r1, r2];
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled([r1?.close(), r2 && stopChild(r2.child)]);
    await redis?.stop();
  });

  it("the admin's /health lists both replicas, one config, ok", async () => {
    const both = async () => (await health(replicas[0]!.url, 'admin-token')).replicas?.length === 2;
    expect(await waitFor(both, 10_000, 100)).toBe(true);
    const seen = await health(replicas[0]!.url, 'admin-token');
    expect(seen.status).toBe('ok');
    expect(seen.replicas!.map((r) => [r.id, r.self, r.stale, r.in_flight, r.config.generation])).toEqual([
      ['r1', true, false, 0, 1],
      ['r2', false, false, 0, 1],
    ]);
    expect(seen.replicas![0]!.config.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(seen.replicas![1]!.config.digest).toBe(seen.replicas![0]!.config.digest);
    expect(seen.replicas![1]!.version).toBe(seen.replicas![0]!.version);
    // The other replica says the same of the fleet, itself first.
    expect((await health(replicas[1]!.url, 'admin-token')).replicas!.map((r) => [r.id, r.self])).toEqual([
      ['r2', true],
      ['r1', false],
    ]);
  });

  it('a named client and anyone else see no fleet; gateway status tells a token that is not the admin', async () => {
    const client = await health(replicas[0]!.url, 'ci-token');
    expect(client.upstreams).toBeDefined(); // what it saw before: this replica's detail
    expect(client.replicas).toBeUndefined();
    expect(await health(replicas[0]!.url)).toEqual({ status: 'ok' });
    const asClient = await status(replicas[0]!.url, 'ci-token');
    expect(asClient.code).toBe(1);
    expect(asClient.stderr).toContain("this token is not the admin's");
    expect(asClient.stdout).not.toContain('r2');
    const asNobody = await status(replicas[0]!.url, undefined);
    expect(asNobody.code).toBe(1);
    expect(asNobody.stderr).toContain('no token was sent (MCPKIT_TOKEN is not set)');
  });

  it('gateway status prints the table, and --json the same', async () => {
    const table = await status(`${replicas[0]!.url}/mcp`, 'admin-token');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('ok: 2 replica(s), one config');
    expect(table.stdout).toMatch(/REPLICA\s+VERSION\s+STARTED\s+GENERATION\s+DIGEST\s+IN FLIGHT\s+LAST SEEN/);
    expect(table.stdout).toMatch(/r1 \(answered\)\s+\S+\s+\S+\s+1\s+[0-9a-f]{12}\s+0\s+just now/);
    expect(table.stdout).toMatch(/\nr2\s+/);
    const json = await status(replicas[0]!.url, 'admin-token', '--json');
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as { status: string; url: string; replicas: FleetReplica[] };
    expect(parsed).toMatchObject({ status: 'ok', url: `${replicas[0]!.url}/health` });
    expect(parsed.replicas.map((r) => r.id)).toEqual(['r1', 'r2']);
  });

  it('one replica given another config: degraded, saying which serves what; gateway status exits 1 with the reason', async () => {
    const text = readFileSync(configs[1]!, 'utf8');
    writeFileSync(configs[1]!, text.replace('"mcp_servers": {}', '"mcp_servers": {}, "tool_views": { "extra": { "servers": [] } }'));
    const degraded = async () => (await health(replicas[0]!.url, 'admin-token')).status === 'degraded';
    expect(await waitFor(degraded, 15_000, 100)).toBe(true);
    const seen = await health(replicas[0]!.url, 'admin-token');
    const [r1, r2] = seen.replicas!;
    expect(r2!.config.generation).toBe(2);
    expect(r2!.config.digest).not.toBe(r1!.config.digest);
    expect(seen.reasons).toEqual([
      `the replicas serve different configs: r1 serves ${r1!.config.digest.slice(0, 12)}; r2 serves ${r2!.config.digest.slice(0, 12)} (a change reached some of them only: keep their config files in step)`,
    ]);
    // What anyone sees of this replica alone is unchanged: the fleet is the admin's.
    expect(await health(replicas[0]!.url)).toEqual({ status: 'ok' });
    const printed = await status(replicas[0]!.url, 'admin-token');
    expect(printed.code).toBe(1);
    expect(printed.stdout).toContain('degraded: 2 replica(s)');
    expect(printed.stdout).toContain('the replicas serve different configs');
    expect(JSON.parse((await status(replicas[0]!.url, 'admin-token', '--json')).stdout)).toMatchObject({ status: 'degraded' });
    // The same config again: one config, ok.
    writeFileSync(configs[1]!, text);
    expect(await waitFor(async () => (await health(replicas[0]!.url, 'admin-token')).status === 'ok', 15_000, 100)).toBe(true);
  }, 60_000);

  it('a replica that dies is stale (degraded) for a lease, then gone', async () => {
    r2!.child.kill('SIGKILL');
    const stale = async () => (await health(replicas[0]!.url, 'admin-token')).replicas?.some((r) => r.id === 'r2' && r.stale) === true;
    expect(await waitFor(stale, 15_000, 100)).toBe(true);
    expect((await health(replicas[0]!.url, 'admin-token')).reasons).toEqual([
      expect.stringMatching(/^replica r2 has not been heard from for [\d.]+ s \(its lease is 1\.5 s\): it may have died$/),
    ]);
    const gone = async () => (await health(replicas[0]!.url, 'admin-token')).replicas?.length === 1;
    expect(await waitFor(gone, 15_000, 100)).toBe(true);
    expect((await health(replicas[0]!.url, 'admin-token')).status).toBe('ok');
  }, 60_000);
});

describe('the fleet, without a store', () => {
  it('counts the calls in flight', async () => {
    const config = writeConfig({ mcp_servers: { everything: SERVERS.everything }, serve: { token: 'admin-token', exposure: 'direct' } });
    const serve = await serveHttpInProcess(config);
    const client = new Client({ name: 'fleet-in-flight', version: '1' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer admin-token' } } }),
      );
      const long = client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 3, steps: 1 } }, { timeout: 30_000 });
      const busy = async () => (await health(serve.url, 'admin-token')).replicas?.[0]?.in_flight === 1;
      expect(await waitFor(busy, 10_000, 50)).toBe(true);
      await long;
      expect((await health(serve.url, 'admin-token')).replicas?.[0]?.in_flight).toBe(0);
    } finally {
      await client.close();
      await serve.close();
    }
  }, 60_000);

  it('is the replica that answers', async () => {
    const config = writeConfig({ mcp_servers: {}, serve: { token: 'admin-token' } });
    const serve = await serveHttpInProcess(config);
    try {
      const seen = await health(serve.url, 'admin-token');
      expect(seen.status).toBe('ok');
      expect(seen.replicas).toEqual([
        expect.objectContaining({ self: true, stale: false, in_flight: 0, config: { digest: expect.stringMatching(/^[0-9a-f]{64}$/), generation: 1 } }),
      ]);
      const table = await status(serve.url, 'admin-token');
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toContain('ok: 1 replica(s), one config');
    } finally {
      await serve.close();
    }
  }, 60_000);

  it('gateway status: an address it cannot reach, or one that is not a gateway, exits 1 saying so', async () => {
    const closed = await status('http://127.0.0.1:1', 'admin-token');
    expect(closed.code).toBe(1);
    expect(closed.stderr).toContain('Cannot reach the gateway at http://127.0.0.1:1/health');
    const bad = await status('ftp://example.com', 'admin-token');
    expect(bad.code).toBe(2);
    const withToken = await status('http://admin:secret@127.0.0.1:1', undefined);
    expect(withToken.code).toBe(2);
    expect(withToken.stderr).toContain('carries credentials');
  });
});
