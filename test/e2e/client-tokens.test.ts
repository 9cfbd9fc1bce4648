import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cleanEnv, runCommand } from '../helpers/cli.js';
import { modernRpc } from '../helpers/modern-rpc.js';
import { serveHttpAsCli, serveHttpInProcess } from '../helpers/in-process.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';
import { redisFor, startRedis, STORE_KEY } from '../support/redis-server.js';

/**
 * Tokens with a life, against a real serve --http, server-everything upstream and SDK clients of
 * both eras: an issued token that expires (401 invalid_token saying when, its open sessions
 * ended), a rotation with grace (the old token works on every route until then, then is refused
 * like a removed one), clients set (routes, limits, expiry, credentials; the token kept), what a
 * 403 names, which route --who tries, and what clients list shows (last seen from the audit log
 * or the store).
 */

const withRedis = redisFor("clients list's last-seen from the store");
// Every test has its own config and serve; the first two wait out a token's expiry and a grace
// (12 s, 10 s) on serve's own timers: they wait at once, beside the others (describe.concurrent).
// Each must outlast what the test does before it runs out: at load 23 on 2 cores that took 10 s of
// the expiry (a CLI start, a reload, two sessions; it is left as it was) and 2 s of the grace (a
// reload, six requests): 10 s is 5x that, and ends the grace test about when the expiry test ends.
const opened: Client[] = [];
afterAll(async () => {
  await Promise.allSettled(opened.map((c) => c.close()));
});

const config = (serve: Record<string, unknown> = {}) =>
  writeConfig({
    mcp_servers: { everything: SERVERS.everything },
    tool_views: { research: { servers: ['everything'] } },
    serve: { token: 'admin-token', exposure: 'direct', ...serve },
  });

/** A 2025 initialize with this token: its status and WWW-Authenticate. */
async function legacyProbe(url: string, token: string) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
    }),
  });
  await r.body?.cancel();
  return { status: r.status, challenge: r.headers.get('www-authenticate') ?? '' };
}

/** A 2026-07-28 tools/call with this token, as a raw client sends it: its status and WWW-Authenticate. */
async function modernProbe(url: string, token: string, tool: string) {
  const r = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: { message: 'probe' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' },
        },
      },
    }),
  });
  await r.body?.cancel();
  return { status: r.status, challenge: r.headers.get('www-authenticate') ?? '' };
}

async function connect(url: string, token: string, era: '2025-11-25' | '2026-07-28') {
  const client = new Client({ name: `agent-${era}`, version: '1.0' }, era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  opened.push(client);
  return client;
}

const echo = async (client: Client, name: string) =>
  ((await client.callTool({ name, arguments: { message: 'hi' } }, { timeout: 30_000 })) as CallToolResult).content?.[0] as { text?: string } | undefined;
const fails = (work: () => Promise<unknown>) =>
  work().then(
    () => false,
    () => true,
  );
/** serve's open 2025 sessions, from /metrics (read with the admin's token, which opens no session). */
async function openSessions(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer admin-token' } })).text();
  return Number(/^mcpkit_sessions_open (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

/** The routes and the name echo has on each (one server: the view publishes it bare). */
const ROUTES = [
  ['/mcp', 'everything__echo'],
  ['/view/research/mcp', 'echo'],
] as const;

describe.concurrent('an issued token that expires', () => {
  it('works until --expires, then gets 401 invalid_token saying when on every route, both eras, and its open sessions end', async () => {
    const file = config();
    const live = await serveHttpInProcess(file, { exposure: undefined });
    try {
      const added = await runCommand(['clients', 'add', 'bot', '--view', 'research', '--view', 'default', '--expires', '12s', '--config', file, '--json']);
      expect(added.code, added.stderr).toBe(0);
      const { token, token_expires: expires } = JSON.parse(added.stdout) as { token: string; token_expires: string };
      expect(readFileSync(file, 'utf8')).toContain(`token_expires: ${expires}`);
      expect(await waitFor(async () => (await legacyProbe(`${live.url}/mcp`, token)).status === 200, 10_000, 100)).toBe(true);
      // At once: all of it must happen before the token expires, on a loaded machine too.
      const [legacy, modern] = await Promise.all([
        connect(`${live.url}/view/research/mcp`, token, '2025-11-25'),
        connect(`${live.url}/mcp`, token, '2026-07-28'),
      ]);
      const echoed = await Promise.all([echo(legacy, 'echo'), echo(modern, 'everything__echo')]);
      expect(echoed.map((e) => e?.text)).toEqual(['Echo: hi', 'Echo: hi']);

      expect(await openSessions(live.url)).toBeGreaterThan(0);
      // Nothing is reloaded at expiry: serve's own timer ends the sessions, before the agent asks anything.
      expect(await waitFor(() => Date.now() > Date.parse(expires) + 100, 30_000, 100)).toBe(true);
      expect(await waitFor(async () => (await openSessions(live.url)) === 0, 10_000, 100)).toBe(true);
      // And every request with it is refused, saying why.
      const said = `Bearer error="invalid_token", error_description="the token expired at ${expires}"`;
      for (const [path, tool] of ROUTES) {
        expect(await legacyProbe(`${live.url}${path}`, token)).toEqual({ status: 401, challenge: said });
        expect(await modernProbe(`${live.url}${path}`, token, tool)).toEqual({ status: 401, challenge: said });
      }
      expect(await waitFor(() => fails(() => legacy.listTools()), 10_000, 100)).toBe(true);
      expect(await fails(() => echo(modern, 'everything__echo'))).toBe(true);
      // Others are untouched.
      expect((await legacyProbe(`${live.url}/mcp`, 'admin-token')).status).toBe(200);
      // The dry run says so too.
      const dry = await runCommand(['clients', '--who', 'bot', '--tool', 'echo', '--config', file]);
      expect(dry.code, dry.stderr).toBe(1);
      expect(dry.stdout).toContain(`bot may not call echo on /view/research/mcp: its token expired at ${expires}`);
    } finally {
      await live.close();
    }
  }, 90_000);
});

describe.concurrent('a rotation with grace', () => {
  it('the old token keeps working on every route in both eras, its sessions too, until the grace ends; then it is refused like a removed one', async () => {
    const file = config();
    const live = await serveHttpInProcess(file, { exposure: undefined });
    try {
      const added = await runCommand(['clients', 'add', 'rot', '--view', 'research', '--view', 'default', '--config', file]);
      expect(added.code, added.stderr).toBe(0);
      const old = added.stdout.trim();
      expect(await waitFor(async () => (await legacyProbe(`${live.url}/mcp`, old)).status === 200, 10_000, 100)).toBe(true);
      const sessions = await Promise.all(ROUTES.map(([path]) => connect(`${live.url}${path}`, old, '2025-11-25')));

      const rotated = await runCommand(['clients', 'rotate', 'rot', '--grace', '10s', '--config', file, '--json']);
      expect(rotated.code, rotated.stderr).toBe(0);
      const { token: fresh, previous_until: until } = JSON.parse(rotated.stdout) as { token: string; previous_until: string };
      expect(readFileSync(file, 'utf8')).toContain(`previous_token_until: ${until}`);
      // The running serve has the rotation once the new token opens.
      expect(await waitFor(async () => (await legacyProbe(`${live.url}/mcp`, fresh)).status === 200, 10_000, 100)).toBe(true);
      for (const [i, [path, tool]] of ROUTES.entries()) {
        expect((await echo(sessions[i]!, tool))?.text, path).toBe('Echo: hi');
        expect((await legacyProbe(`${live.url}${path}`, old)).status, path).toBe(200);
        expect(await modernRpc(`${live.url}${path}`, 'tools/call', { name: tool, arguments: { message: 'old' } }, { token: old })).toMatchObject({
          status: 200,
          result: { content: [{ text: 'Echo: old' }] },
        });
      }

      // At the grace's end serve's timer ends every session of the old token, untold: the new token's one session stays.
      expect(await waitFor(() => Date.now() > Date.parse(until) + 100, 40_000, 100)).toBe(true);
      expect(await waitFor(async () => (await openSessions(live.url)) === 1, 10_000, 100)).toBe(true);
      for (const [path, tool] of ROUTES) {
        // Refused as a token nobody has, not as an expired one: it was replaced.
        expect(await legacyProbe(`${live.url}${path}`, old)).toEqual({ status: 401, challenge: 'Bearer error="invalid_token"' });
        expect((await modernProbe(`${live.url}${path}`, old, tool)).status).toBe(401);
        expect((await modernProbe(`${live.url}${path}`, fresh, tool)).status).toBe(200);
      }
      for (const session of sessions) expect(await waitFor(() => fails(() => session.listTools()), 10_000, 100)).toBe(true);
    } finally {
      await live.close();
    }
  }, 120_000);
});

describe.concurrent('clients set, 403s, --who and clients list', () => {
  it('set changes routes, limits, expiry and credentials with the token kept, and the running serve follows; a refused set changes nothing', async () => {
    const file = config({ audit_log: 'audit.jsonl' });
    const env = { CI_EXTRA: 'extra-value' };
    // In this process, with the environment a process of it would have: what it serves is the point.
    const live = await serveHttpAsCli(file, { env: cleanEnv(env) });
    const run = (args: string[]) => runCommand([...args, '--config', file], { env: cleanEnv(env) });
    try {
      const added = await run(['clients', 'add', 'ci', '--view', 'research']);
      expect(added.code, added.stderr).toBe(0);
      const token = added.stdout.trim();
      expect(await waitFor(async () => (await legacyProbe(`${live.url}/view/research/mcp`, token)).status === 200, 10_000, 100)).toBe(true);

      // A 403 names where the token does go.
      expect(await legacyProbe(`${live.url}/mcp`, token)).toEqual({
        status: 403,
        challenge: 'Bearer error="insufficient_scope", error_description="This credential does not open /mcp; this token opens /view/research/mcp."',
      });
      // --who tries the client's own route, not /mcp it may not use.
      const dry = await run(['clients', '--who', 'ci', '--tool', 'echo']);
      expect(dry.code, dry.stdout + dry.stderr).toBe(0);
      expect(dry.stdout).toContain('ci may call echo on /view/research/mcp: the client has no rules.');

      const agent = await connect(`${live.url}/view/research/mcp`, token, '2025-11-25');
      expect((await echo(agent, 'echo'))?.text).toBe('Echo: hi');
      // The audit log is written in batches after the answer went out: the list waits for the call's line.
      type Listed = { last_seen_from: string; clients: { last_seen: string | null }[] };
      let seen: Listed | undefined;
      const seenOnce = async () => {
        seen = JSON.parse((await run(['clients', 'list', '--json'])).stdout) as Listed;
        return seen.clients[0]!.last_seen !== null;
      };
      expect(await waitFor(seenOnce, 10_000, 100)).toBe(true);
      expect(seen!.last_seen_from).toBe('audit log');
      expect(Date.parse(seen!.clients[0]!.last_seen!)).toBeGreaterThan(Date.now() - 60_000);

      const digest = /token_sha256: ([0-9a-f]{64})/.exec(readFileSync(file, 'utf8'))![1];
      const set = await run([
        'clients',
        'set',
        'ci',
        '--view',
        'default',
        '--rate',
        '30/min',
        '--expires',
        '30d',
        '--credential',
        'everything.EXTRA=${CI_EXTRA}',
        '--json',
      ]);
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(set.stdout)).toMatchObject({ name: 'ci', changed: true });
      const written = readFileSync(file, 'utf8');
      expect(written).toContain(`token_sha256: ${digest}`);
      expect((parse(written) as { serve: { clients: { ci: unknown } } }).serve.clients.ci).toMatchObject({
        token_sha256: digest,
        views: ['default'],
        credentials: { everything: { env: { EXTRA: '${CI_EXTRA}' } } },
      });
      // The same token now opens /mcp and not the view.
      expect(await waitFor(async () => (await legacyProbe(`${live.url}/mcp`, token)).status === 200, 10_000, 100)).toBe(true);
      expect((await legacyProbe(`${live.url}/view/research/mcp`, token)).challenge).toContain('this token opens /mcp.');

      for (const refused of [
        ['--rate', '5/hour'],
        ['--credential', 'everything.EXTRA=plain-secret'],
        ['--credential', 'everything.header:X-Key=${CI_EXTRA}'],
        ['--expires', '2001-01-01'],
        ['--view', 'nope'],
      ]) {
        const r = await run(['clients', 'set', 'ci', ...refused]);
        expect(r.code, refused.join(' ')).not.toBe(0);
        expect(readFileSync(file, 'utf8'), refused.join(' ')).toBe(written);
      }

      const listed = JSON.parse((await run(['clients', 'list', '--json'])).stdout) as { clients: Record<string, unknown>[] };
      expect(listed.clients[0]).toMatchObject({ name: 'ci', routes: ['default'], rate: '30/min', credentials: ['everything'], grace_until: null });
      expect(Date.parse(listed.clients[0]!.token_expires as string)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
      expect(JSON.stringify(listed)).not.toContain('extra-value');
      const table = await run(['clients']);
      expect(table.stdout).toMatch(/EXPIRES\s+GRACE\s+CREDENTIALS\s+LAST_SEEN/);
      expect(table.stdout).toMatch(/ci\s+issued token\s+default\s.*everything/);
    } finally {
      await live.close();
    }
  }, 90_000);

  it.runIf(withRedis)(
    'with serve.store, clients list says when each client was last seen, from the store',
    async () => {
      const redis = await startRedis();
      const file = config({ store: { url: redis.url, prefix: `seen${Date.now()}`, key: STORE_KEY } });
      const live = await serveHttpInProcess(file, { exposure: undefined });
      try {
        const added = await runCommand(['clients', 'add', 'agent', '--config', file]);
        const idle = await runCommand(['clients', 'add', 'idle', '--config', file]);
        expect([added.code, idle.code], added.stderr + idle.stderr).toEqual([0, 0]);
        const token = added.stdout.trim();
        expect(await waitFor(async () => (await modernProbe(`${live.url}/mcp`, token, 'everything__echo')).status === 200, 10_000, 100)).toBe(true);
        const listed = JSON.parse((await runCommand(['clients', 'list', '--config', file, '--json'])).stdout) as {
          last_seen_from: string;
          clients: { name: string; last_seen: string | null }[];
        };
        expect(listed.last_seen_from).toBe('store');
        expect(listed.clients.find((c) => c.name === 'idle')!.last_seen).toBeNull();
        expect(Date.parse(listed.clients.find((c) => c.name === 'agent')!.last_seen!)).toBeGreaterThan(Date.now() - 60_000);
        expect((await runCommand(['clients', '--config', file])).stdout).toMatch(/idle\s.*not seen/);
      } finally {
        await live.close();
        await redis.stop();
      }
    },
    60_000,
  );
});
