import { join } from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, outputOf, runCommand } from '../helpers/cli.js';
import { type InProcessServe, serveHttpAsCli, serveStdioInProcess } from '../helpers/in-process.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * Progress keeps a call alive: with timeout_ms 1500, server-everything's 4 s operation that
 * reports progress every 0.5 s succeeds, and the same operation reporting nothing until its end
 * times out at 1.5 s; max_total_ms is the ceiling however much progress comes. On every path:
 * stdio, HTTP's hot path and its ordinary path (a view with a hook), a 2026-07-28 client (whose
 * call is bridged to this 2025 server), and `mcpkit call` in a terminal.
 * serve runs in the test's process (test/helpers/in-process.ts: the same runtime, stdio framing,
 * routes and paths as the process): what is timed is the call, not serve's process. The one
 * process is the terminal's, where a process alone shows the bar.
 */

const LONG = 'trigger-long-running-operation';
let config: string;
let served: InProcessServe;
const opened: Client[] = [];

beforeAll(async () => {
  config = writeConfig({
    mcp_servers: {
      everything: { ...SERVERS.everything, timeout_ms: 1500 },
      // A wider idle window than the others: the ceiling, not a late tick under load, must end its call.
      capped: { ...SERVERS.everything, timeout_ms: 2000, max_total_ms: 3000 },
    },
    tool_views: {
      fast: { servers: ['everything'] },
      hooked: { servers: ['everything'], hooks: { pre_call: 'hook.mjs' } },
      capped: { servers: ['capped'] },
    },
    serve: { exposure: 'direct', groups: ['config'] },
  });
  // A hook that changes nothing: it only keeps the view's calls off the hot path.
  writeFileSync(join(dirname(config), 'hook.mjs'), 'export function pre_call() { return undefined; }\n');
  // As the process is started: the config's exposure, a clean environment.
  served = await serveHttpAsCli(config);
});
afterAll(async () => {
  await Promise.allSettled(opened.map((c) => c.close()));
  await served?.close();
});

async function http(view: string, era: 'legacy' | 'modern' = 'legacy') {
  const client = new Client({ name: 'progress', version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/view/${view}/mcp`)));
  opened.push(client);
  await client.listTools();
  return client;
}

/**
 * Waits until the client is offered `name`. timeout_ms (1500 ms here) bounds a server's start too:
 * on a loaded machine a first start may miss it, and the server is offered once a reconnect makes
 * it. The tests time the tool's calls, not its start.
 */
async function listed(client: Client, name: string): Promise<void> {
  expect(await waitFor(async () => (await client.listTools()).tools.some((t) => t.name === name), 30_000, 250), `${name} is offered`).toBe(true);
}

/** The call's outcome and how long it took; the client's own timeout is far beyond the server's. */
async function timed(client: Client, args: { duration: number; steps: number }, name = LONG) {
  const started = Date.now();
  const result = (await client.callTool({ name, arguments: args }, { timeout: 60_000 })) as CallToolResult;
  const error = (result.structuredContent as { error?: { code: string; message: string } } | undefined)?.error;
  return { ms: Date.now() - started, ok: !result.isError, error, text: JSON.stringify(result.content) };
}

const paths: [string, () => Promise<Client>][] = [
  ['stdio', async () => (await serveStdioInProcess(config)).client],
  ['HTTP, hot path', () => http('fast')],
  ['HTTP, ordinary path (a hook)', () => http('hooked')],
  ['HTTP, 2026-07-28 client (bridged)', () => http('fast', 'modern')],
];

// Each test mostly waits on a call of seconds: they run at once, each on its own client.
describe.concurrent('progress and the timeouts', () => {
  describe.each(paths)('%s', (_path, connect) => {
    let client: Client;
    beforeAll(async () => {
      client = await connect();
      opened.push(client);
      await listed(client, _path === 'stdio' ? `everything__${LONG}` : LONG);
    }, 40_000);

    it('a 4 s call reporting progress every 0.5 s outlives timeout_ms 1500; one that reports none times out at 1.5 s', async () => {
      const name = _path === 'stdio' ? `everything__${LONG}` : LONG;
      // The silent call would answer at 10 s: a timeout that fires late on a loaded machine (its
      // timer behind others') still fires long before that answer, which it would otherwise let in
      // first (an answer waiting is read before the timeout fires). The test waits for neither.
      const [kept, silent] = await Promise.all([timed(client, { duration: 4, steps: 8 }, name), timed(client, { duration: 10, steps: 1 }, name)]);
      expect(kept.ok, JSON.stringify(kept)).toBe(true);
      expect(kept.text).toContain('Long running operation completed');
      expect(kept.ms).toBeGreaterThanOrEqual(3900);
      expect(silent.ok).toBe(false);
      expect(silent.error?.code).toBe('TIMEOUT');
      expect(silent.error?.message).toContain('within 1500 ms (and reported no progress in that time)');
      expect(silent.ms).toBeLessThan(9_500);
    }, 30_000);
  });

  describe('the ceiling', () => {
    it('max_total_ms ends a call however much progress it reports', async () => {
      const client = await http('capped');
      await listed(client, LONG);
      // Progress every 0.5 s for 10 s: only the ceiling (3 s) ends it, late or not, long before its answer.
      const capped = await timed(client, { duration: 10, steps: 20 });
      expect(capped.ok).toBe(false);
      expect(capped.error?.message).toContain('past its ceiling, mcp_servers.capped.max_total_ms');
      expect(capped.ms).toBeLessThan(9_500);
    }, 30_000);
  });

  describe('mcpkit call', () => {
    it('keeps a call alive by its progress in a terminal too', async () => {
      // In this process, as the daemon runs a line (runCommand); the terminal's test below runs one as a process.
      const r = await runCommand(['call', `everything__${LONG}`, '--config', config, '--json', '--', 'duration=3', 'steps=6']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Long running operation completed');
    }, 30_000);
  });

  describe('mcpkit call in a terminal', () => {
    const script = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));
    it.skipIf(!script)(
      'draws the progress as a bar on stderr, then clears it (script(1) gives it a terminal)',
      async () => {
        const line = `"${process.execPath}" "${BIN}" call everything__${LONG} --config "${config}" --no-daemon -- duration=2 steps=4`;
        // script(1) runs the line in a pseudo-terminal and copies everything it printed to stdout.
        const seen = await outputOf(script!, ['-qec', line, '/dev/null'], { cwd: dirname(config), env: cleanEnv({ COLUMNS: '100' }) });
        expect(seen).toMatch(/\[#{5}-{15}\]\s+25%/);
        expect(seen).toMatch(/\[#{20}\] 100%/);
        // Cleared before the result is printed.
        expect(seen).toContain('\u001b[2KLong running operation completed');
      },
      30_000,
    );
  });
});
