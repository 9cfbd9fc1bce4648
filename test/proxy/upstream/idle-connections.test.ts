import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/core/logger.js';
import { Upstream } from '../../../src/proxy/upstream/upstream.js';
import { cleanEnv, ROOT, spawnTracked, stopChild, tempDir, type PipedChild } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/upstreams.js';

/**
 * The keep-alive race as a loaded machine makes it: an HTTP upstream (test/fixtures/many-servers.mjs,
 * in a child process so that its timers run while this process is stuck) ends connections idle for
 * 3 s and says so (`Keep-Alive: timeout=3`: undici keeps them 1 s). This process's event loop is
 * then blocked past the server's close, so neither undici's idle timer nor the server's FIN is
 * seen, and a tools/call is made at once: written on the connection the server closed, it would
 * fail unanswered (`fetch failed`), and is never sent again. It must go on a new connection
 * instead, and run once. The blocked loop reads the server's event file synchronously.
 */

const SERVER_KEEP_MS = 3_000;
/** undici keeps a connection whose answer said timeout=3 for 3 s less its 2 s threshold. */
const CLIENT_KEEP_MS = 1_000;

let servers: PipedChild;
let events = '';
let base = '';

beforeAll(async () => {
  events = join(tempDir(), 'events');
  writeFileSync(events, '');
  const args = [join(ROOT, 'test/fixtures/many-servers.mjs'), `--keep-alive-ms=${SERVER_KEEP_MS}`, `--events=${events}`];
  servers = spawnTracked(process.execPath, args, { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  servers.stdout.on('data', (d) => (out += d));
  expect(await waitFor(() => out.includes('\n'), 10_000)).toBe(true);
  base = out.trim();
}, 20_000);
afterAll(async () => {
  if (servers) await stopChild(servers);
});

const told = () => readFileSync(events, 'utf8').split('\n').filter(Boolean);

/**
 * Blocks this thread (nothing of its event loop runs) until the server has closed every connection
 * it opened, and this process has been idle longer than undici keeps the connection: only lower
 * bounds, however slow the machine; a generous deadline in case the server never closes.
 */
function blockUntilServerClosedAll(idleSince: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = performance.now() + 60_000;
  const allClosed = () => {
    const lines = told();
    const opened = lines.filter((l) => l === 'open').length;
    return opened > 0 && lines.filter((l) => l === 'closed').length === opened;
  };
  while (!(allClosed() && performance.now() - idleSince > CLIENT_KEEP_MS) && performance.now() < deadline) Atomics.wait(pause, 0, 0, 20);
  expect(allClosed(), 'the server closed its idle connections').toBe(true);
}

describe('a tools/call after the server closed its idle connection, unseen by a blocked client', () => {
  it('goes on a new connection, is answered, and runs once', async () => {
    const upstream = new Upstream({
      name: 's1',
      config: { url: `${base}/s1/mcp`, protocol: '2025-11-25', timeout_ms: 30_000 },
      logger: createLogger('error', () => {}),
      version: 'test',
      env: cleanEnv(),
      stderr: () => {},
    });
    try {
      expect((await upstream.listTools()).some((t) => t.name === 'tool_1')).toBe(true);
      // undici gives the connection back to its pool in the turns after the answer's end.
      await new Promise((resolve) => setTimeout(resolve, 50));
      blockUntilServerClosedAll(performance.now());
      const result = await upstream.call({ name: 'tool_1', args: { message: 'once' } });
      expect(JSON.stringify(result.content)).toContain('s1 tool_1 once');
      expect(told().filter((l) => l.startsWith('ran '))).toEqual(['ran s1 tool_1 once']);
    } finally {
      await upstream.close();
    }
  }, 120_000);
});
