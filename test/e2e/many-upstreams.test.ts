import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, spawnTracked, stopChild, type PipedChild } from '../helpers/cli.js';
import { type InProcessServe, serveHttpAsCli } from '../helpers/in-process.js';
import { waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * Fifty upstreams, one of which never answers initialize: it never delays a call to another
 * server, and a listing waits for it no longer than its own timeout. The servers are one HTTP
 * process (test/fixtures/many-servers.mjs), so that fifty cost little. It keeps idle connections
 * a minute, so the keep-alive race (the server ending an idle connection as a call is sent on it,
 * which fails the call: a tools/call is never sent twice) does not hit these tests, whose point
 * is the dead server; test/e2e/upstream-idle-close.test.ts is about that race. serve runs in this
 * process (helpers/in-process.ts: `serve --http`'s code without a process start): what is asked is
 * its answers and its /health, not its process.
 */

/**
 * How long mcpkit waits for the dead server's initialize: longer than a call to a live server
 * takes on a loaded machine (a full run saw 15 s at a load of 16 on 2 cores), so that the order
 * the first test asserts is the product's, not the machine's.
 */
const DEAD_TIMEOUT_MS = 20_000;
const health = async () => (await (await fetch(`${served.url}/health`)).json()) as { upstreams: { name: string; state: string }[] };

let servers: PipedChild;
let served: InProcessServe;
const clients: Client[] = [];

beforeAll(async () => {
  servers = spawnTracked(process.execPath, [join(ROOT, 'test/fixtures/many-servers.mjs')], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let base = '';
  servers.stdout.on('data', (d) => (base += d));
  expect(await waitFor(() => base.includes('\n'), 10_000)).toBe(true);
  const url = base.trim();
  const mcp_servers: Record<string, object> = { dead: { url: `${url}/dead/mcp`, protocol: '2025-11-25', timeout_ms: DEAD_TIMEOUT_MS } };
  for (let n = 0; n < 49; n++) mcp_servers[`s${n}`] = { url: `${url}/s${n}/mcp`, protocol: '2025-11-25' };
  // Every tool listed (980 of them would otherwise be behind the search meta-tools); the servers
  // start on first use, so the dead one is first waited for by the tests below, not by serve's start.
  served = await serveHttpAsCli(writeConfig({ mcp_servers, serve: { exposure: 'direct', eager: false } }));
}, 30_000);
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled([served?.close(), servers && stopChild(servers)]);
});

async function client(): Promise<Client> {
  const c = new Client({ name: 'many', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
  clients.push(c);
  return c;
}

describe('fifty upstreams, one dead', () => {
  it('a call to a live server is answered without waiting for the dead one', async () => {
    const c = await client();
    const answer = JSON.stringify((await c.callTool({ name: 's37__tool_5', arguments: { message: 'hi' } })).content);
    expect(answer).toContain('s37 tool_5 hi');
    // Answered while the dead one is still waited for: its timeout has not run out (an order, not
    // a bound of time that a loaded machine could break).
    expect(['idle', 'connecting']).toContain((await health()).upstreams.find((u) => u.name === 'dead')?.state);
  }, 60_000);

  it('tools/list has every live server, after no more than the dead one’s timeout; /health names it', async () => {
    const c = await client();
    const started = Date.now();
    const { tools } = await c.listTools();
    // The dead one's timeout, and room for a loaded machine to list 980 tools.
    expect(Date.now() - started).toBeLessThan(DEAD_TIMEOUT_MS + 8_000);
    const upstream = tools.filter((t) => /^s\d+__tool_\d+$/.test(t.name));
    expect(upstream).toHaveLength(49 * 20);
    expect(tools.some((t) => t.name.startsWith('dead__'))).toBe(false);
    const { upstreams } = await health();
    expect(upstreams.find((u) => u.name === 'dead')?.state).not.toBe('ready');
    expect(upstreams.filter((u) => u.name !== 'dead').every((u) => u.state === 'ready')).toBe(true);
  }, 60_000);
});
