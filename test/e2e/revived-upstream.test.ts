import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { coolDownMs } from '../../src/proxy/upstream/reconnect-schedule.js';
import { reconnectPolicy } from '../../src/core/backoff.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';
import { EVERYTHING_BUNDLE, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * Servers that failed their whole reconnect schedule before they ever listed (broken for a while
 * at gateway start) are not lost for the session: a later listing starts a new round, a cool-down
 * after the last, one round at a time, and once a server starts its tools are listed and called,
 * with no restart of serve. The cool-down doubles with each round that runs out. Two such servers
 * in one serve, so that the two stories run side by side: `fixed` can start from the end of its
 * first round on, `broken` never can. The schedule is the servers' own `reconnect` setting: one
 * attempt, 4 s after the first start, so that a round (4 s, 2 starts of each server) is as short as
 * a round can be for its cool-down (the round's longest wait, 4 s): against serve's default (6
 * attempts from 250 ms: 15.75 s, 7 starts, 8 s) or 3 attempts from 1 s (7 s, 4 starts, 4 s), the
 * file waits out two shorter rounds, while the windows the test watches (half a cool-down) stay
 * well past the lag of a loaded machine.
 */
const RECONNECT = { attempts: 1, first_delay_ms: 4000 };
/** Starts of a server in one round of a connection: its first attempt, and one per scheduled one. */
const ROUND_STARTS = RECONNECT.attempts + 1;
const COOL_DOWN = coolDownMs(reconnectPolicy(RECONNECT));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(ms, 0)));

interface Health {
  upstreams: { name: string; state: string; error?: string; stderr?: string[]; connections?: { era: string; state: string }[] }[];
}

/** A server that fails to start while its marker file exists, and counts its starts (test/fixtures/flaky-server.mjs). */
function flakyServer(dir: string, name: string) {
  const marker = join(dir, `${name}.broken`);
  const startsFile = join(dir, `${name}.starts`);
  writeFileSync(marker, '');
  return {
    entry: {
      command: process.execPath,
      args: [join(ROOT, 'test/fixtures/flaky-server.mjs'), marker, startsFile, EVERYTHING_BUNDLE],
      reconnect: RECONNECT,
    },
    marker,
    starts: () => (existsSync(startsFile) ? readFileSync(startsFile, 'utf8').trim().split('\n').length : 0),
  };
}

describe('servers whose reconnect schedule ran out before they listed', () => {
  it.concurrent.each([
    ['legacy', 'listing'],
    ['modern', 'call'],
  ] as const)(
    '%s: are tried again by a later listing or call, a cool-down apart (doubled after a round that fails) and one round at a time, and serve once they start (then: by a %s)',
    async (era, how) => {
      const dir = tempDir('mcpkit-revived-');
      const broken = flakyServer(dir, 'broken');
      const fixed = flakyServer(dir, 'fixed');
      const served = await serveHttpInProcess(writeConfig({ mcp_servers: { broken: broken.entry, fixed: fixed.entry, memory: SERVERS.memory } }));
      const client = new Client({ name: `revived-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
        const names = async () => (await client.listTools()).tools.map((t) => t.name);
        const echo = async () => JSON.stringify((await client.callTool({ name: 'fixed__echo', arguments: { message: 'back' } })).content);
        const gaveUp = (name: string) => served.lines.filter((l) => l.includes(`${name}: giving up after ${RECONNECT.attempts} reconnect attempts`)).length;
        const health = async (name: string) => ((await (await fetch(`${served.url}/health`)).json()) as Health).upstreams.find((u) => u.name === name);
        /** How this era's connection stands (2026 clients have their own, beside the 2025 one serve starts with). */
        const stateOf = async (name: string) => ((h) => h?.connections?.find((c) => c.era === era)?.state ?? h?.state)(await health(name));
        // serve starts its 2025 connections as it starts: a 2026 client's connection is a second one, with its own schedule.
        const connections = era === 'legacy' ? 1 : 2;

        // The other server is listed at once; the two broken ones run their whole schedules out.
        expect(await names()).toContain('memory__read_graph');
        expect(await waitFor(() => gaveUp('broken') === connections && gaveUp('fixed') === connections, 60_000)).toBe(true);
        const ranOut = Date.now(); // no sooner than both rounds ran out
        // ROUND_STARTS attempts per connection; a 2026 client's connection may start
        // the server twice in one attempt (its era probed on a process of its own, then the 2025 handshake).
        const firstRound = { broken: broken.starts(), fixed: fixed.starts() };
        expect(firstRound.broken).toBeGreaterThanOrEqual(ROUND_STARTS * connections);
        expect(firstRound.fixed).toBeGreaterThanOrEqual(ROUND_STARTS * connections);
        expect(await health('broken')).toMatchObject({
          state: 'down',
          error: expect.any(String),
          stderr: expect.arrayContaining(['flaky: failing on purpose']),
        });
        expect(await stateOf('broken')).toBe('down');

        // `fixed` can start from now on; listings within the cool-down start neither server...
        rmSync(fixed.marker);
        while (Date.now() < ranOut + COOL_DOWN / 2) {
          expect(await names()).not.toContain('fixed__echo');
          await sleep(200);
        }
        expect(broken.starts()).toBe(firstRound.broken);
        expect(fixed.starts()).toBe(firstRound.fixed);
        // ...and once it has passed, the very next listing lists fixed's tools, or the very next call
        // of one (a client that calls without listing) reaches it.
        await sleep(COOL_DOWN + 250 - (Date.now() - ranOut));
        if (how === 'listing') expect(await names(), served.lines.join('\n')).toContain('fixed__echo');
        else expect(await echo()).toContain('Echo: back');
        expect(await echo()).toContain('Echo: back');
        expect(await stateOf('fixed')).toBe('ready');

        // `broken`: a listing (that one, or the next) starts one new round, and listings during it start no other.
        const deadline = Date.now() + 60_000;
        while (gaveUp('broken') < connections + 1 && Date.now() < deadline) {
          await names();
          await sleep(200);
        }
        expect(gaveUp('broken')).toBe(connections + 1);
        const secondRanOut = Date.now(); // no sooner than its second round ran out
        // One round of ROUND_STARTS attempts, though some 30 listings came while it ran.
        const secondRound = broken.starts() - firstRound.broken;
        expect(secondRound).toBeGreaterThanOrEqual(ROUND_STARTS);
        expect(secondRound).toBeLessThanOrEqual(era === 'legacy' ? ROUND_STARTS : 2 * ROUND_STARTS);
        // A second round failed: the cool-down has doubled, and listings past the first one start no third round.
        while (Date.now() < secondRanOut + COOL_DOWN + 500) {
          expect(await names()).toContain('fixed__echo');
          await sleep(200);
        }
        expect(broken.starts()).toBe(firstRound.broken + secondRound);
        expect(served.lines.filter((l) => l.includes('broken: giving up')).at(-1)).toContain(`a listing ${(2 * COOL_DOWN) / 1000} s from now`);
        expect(await stateOf('broken')).toBe('down');
        expect(await echo()).toContain('Echo: back');
      } finally {
        await client.close().catch(() => undefined);
        await served.close();
      }
    },
    240_000,
  );
});
