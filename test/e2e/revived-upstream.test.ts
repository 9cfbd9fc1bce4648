import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { coolDownMs } from '../../src/proxy/upstream/reconnect-schedule.js';
import { DEFAULT_BACKOFF } from '../../src/core/backoff.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * A server that failed its whole reconnect schedule before it ever listed (broken for a while at
 * gateway start) is not lost for the session: a later listing starts a new round, a cool-down
 * after the last, one round at a time, and once the server starts its tools are listed and
 * called, with no restart of serve. The schedule is serve's own (6 attempts, 250 ms doubling).
 */
const COOL_DOWN = coolDownMs(DEFAULT_BACKOFF);
const GIVING_UP = 'flaky: giving up after 6 reconnect attempts';

interface Health {
  upstreams: { name: string; state: string; error?: string; stderr?: string[]; connections?: { era: string; state: string }[] }[];
}

describe('a server whose reconnect schedule ran out before it listed', () => {
  it.concurrent.each([
    ['legacy', 'listing'],
    ['modern', 'call'],
  ] as const)(
    '%s: is tried again by a later listing or call, a cool-down apart and one round at a time, and serves once it starts (then: by a %s)',
    async (era, how) => {
      const dir = tempDir('mcpkit-revived-');
      const marker = join(dir, 'broken');
      const startsFile = join(dir, 'starts');
      writeFileSync(marker, '');
      const flaky = { command: process.execPath, args: [join(ROOT, 'test/fixtures/flaky-server.mjs'), marker, startsFile] };
      const served = await serveHttpInProcess(writeConfig({ mcp_servers: { flaky, memory: SERVERS.memory } }));
      const client = new Client({ name: `revived-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
        const names = async () => (await client.listTools()).tools.map((t) => t.name);
        const starts = () => (existsSync(startsFile) ? readFileSync(startsFile, 'utf8').trim().split('\n').length : 0);
        const gaveUp = () => served.lines.filter((l) => l.includes(GIVING_UP)).length;
        const flakyHealth = async () => ((await (await fetch(`${served.url}/health`)).json()) as Health).upstreams.find((u) => u.name === 'flaky');
        /** How this era's connection stands (2026 clients have their own, beside the 2025 one serve starts with). */
        const flakyState = async () => ((h) => h?.connections?.find((c) => c.era === era)?.state ?? h?.state)(await flakyHealth());
        // serve starts its 2025 connections as it starts: a 2026 client's connection is a second one, with its own schedule.
        const connections = era === 'legacy' ? 1 : 2;

        // The other server is listed at once; the broken one runs its whole schedule out.
        expect(await names()).toContain('memory__read_graph');
        expect(await waitFor(() => gaveUp() === connections, 60_000)).toBe(true);
        // 7 attempts per connection (its first and 6 scheduled); a 2026 client's connection may start
        // the server twice in one attempt (its era probed on a process of its own, then the 2025 handshake).
        const firstRound = starts();
        expect(firstRound).toBeGreaterThanOrEqual(7 * connections);
        expect(await flakyHealth()).toMatchObject({ state: 'down', error: expect.any(String), stderr: expect.arrayContaining(['flaky: failing on purpose']) });
        expect(await flakyState()).toBe('down');

        // Listings within the cool-down start nothing...
        const coolDownEnds = Date.now() + COOL_DOWN / 2;
        while (Date.now() < coolDownEnds) {
          expect(await names()).not.toContain('flaky__echo');
          await new Promise((r) => setTimeout(r, 200));
        }
        expect(starts()).toBe(firstRound);
        // ...a later one starts one new round, and listings during it start no other.
        const deadline = Date.now() + 60_000;
        while (gaveUp() < connections + 1 && Date.now() < deadline) {
          await names();
          await new Promise((r) => setTimeout(r, 200));
        }
        expect(gaveUp()).toBe(connections + 1);
        // One round of 7 attempts, though some 50 listings came while it ran.
        const secondRound = starts() - firstRound;
        expect(secondRound).toBeGreaterThanOrEqual(7);
        expect(secondRound).toBeLessThanOrEqual(era === 'legacy' ? 7 : 14);
        expect(await flakyState()).toBe('down');

        // The server can start now. Once the cool-down has passed, the very next listing lists its
        // tools, or the very next call of one (a client that calls without listing) reaches it.
        const secondGaveUp = Date.now(); // no sooner than the round ran out
        rmSync(marker);
        await new Promise((r) => setTimeout(r, COOL_DOWN + 1_000 - (Date.now() - secondGaveUp)));
        const echo = async () => JSON.stringify((await client.callTool({ name: 'flaky__echo', arguments: { message: 'back' } })).content);
        if (how === 'listing') expect(await names()).toContain('flaky__echo');
        else expect(await echo()).toContain('Echo: back');
        expect(await echo()).toContain('Echo: back');
        expect(await names()).toContain('flaky__echo');
        expect(starts()).toBeGreaterThan(firstRound + secondRound);
        expect(await flakyState()).toBe('ready');
      } finally {
        await client.close().catch(() => undefined);
        await served.close();
      }
    },
    240_000,
  );
});
