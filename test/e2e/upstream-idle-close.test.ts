import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCommand, spawnTracked, stopChild, type PipedChild } from '../helpers/cli.js';
import { waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * The keep-alive race: an HTTP server closes a pooled connection as idle just as mcpkit sends a
 * request on it (a full run under load saw a live server's call fail with "fetch failed"). The
 * servers of test/fixtures/many-servers.mjs with --drop-reused-call close the connection of the
 * first tools/call that comes on a connection that already carried a request, unread, as a
 * server's keepAliveTimeout does: mcpkit sends that call again on a new connection, and the server
 * runs it once.
 */

let servers: PipedChild;
let base = '';

beforeAll(async () => {
  servers = spawnTracked(process.execPath, [join(ROOT, 'test/fixtures/many-servers.mjs'), '--drop-reused-call'], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  servers.stdout.on('data', (d) => (out += d));
  expect(await waitFor(() => out.includes('\n'), 10_000)).toBe(true);
  base = out.trim();
}, 20_000);
afterAll(async () => {
  if (servers) await stopChild(servers);
});

describe('an HTTP server that closes an idle connection as a call is sent on it', () => {
  it('the call is sent again on a new connection, answered, and run once', async () => {
    const config = writeConfig({ mcp_servers: { s3: { url: `${base}/s3/mcp`, protocol: '2025-11-25', timeout_ms: 20_000 } } });
    // Two commands, one after the other in this process: the second's requests come on the
    // connections the first left in Node's pool, so one of the two calls comes on a reused one.
    const runs = [];
    for (const message of ['one', 'two'])
      runs.push(await runCommand(['call', 's3__tool_5', `message=${message}`], { env: cleanEnv({ MCPKIT_CONFIG: config }) }));
    const stats = (await (await fetch(`${base}/stats`)).json()) as { handled: number; dropped: number };
    // The server did close a call's connection unread (else this test proves nothing) ...
    expect(stats.dropped).toBe(1);
    // ... and each call was answered, by a single run of the tool.
    for (const [i, r] of runs.entries()) {
      expect(r.stderr).not.toContain('fetch failed');
      expect(r.stdout).toContain(`s3 tool_5 ${['one', 'two'][i]}`);
      expect(r.code).toBe(0);
    }
    expect(stats.handled).toBe(2);
  }, 60_000);
});
