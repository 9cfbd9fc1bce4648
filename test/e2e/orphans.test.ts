import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostFacts } from '../../src/proxy/sandbox/host-facts.js';
import { BIN, cleanEnv, ROOT, spawnTracked, tempDir } from '../helpers/cli.js';
import { serveStdioClient } from '../helpers/serve.js';
import { alive, childPids, waitFor } from '../helpers/upstreams.js';

/**
 * Nothing a stdio server started outlives mcpkit, however mcpkit ends: SIGTERM, Ctrl-C, stdin
 * closed, or killed outright. Each server, and a child each server starts, carries a marker on its
 * command line; after mcpkit ends, /proc must hold no process with it. Where bubblewrap works
 * (CI installs it), servers run in a pid namespace that ends with mcpkit; elsewhere only the
 * server process itself is told (SIGTERM), so a killed mcpkit may leave a server's own children:
 * that case cannot be checked there. It fails where bubblewrap is required (CI: .ci/run sets
 * MCPKIT_BWRAP=required), and is skipped elsewhere, saying so in one line.
 */
const facts = hostFacts(process.env);
const bwrap = facts.bwrap !== undefined;
const BWRAP_REQUIRED = process.env.MCPKIT_BWRAP === 'required' || process.env.CI === 'true';
const NO_BWRAP = `bubblewrap cannot make a box here (${facts.bwrapProblem ?? 'unknown'}): install Debian's "bubblewrap" and allow unprivileged user namespaces`;
if (!bwrap && !BWRAP_REQUIRED) console.log(`skipped: a killed serve leaving no children (${NO_BWRAP})`);
const PROBE = join(ROOT, 'test/fixtures/probe-server.mjs');

/** The pids whose command line holds `marker` (the servers, bubblewrap around them, their children). */
function withMarker(marker: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const state = /State:\s+(\S)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (state !== 'Z' && readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker)) out.push(Number(pid));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Every process below `pid` now (its children, theirs, and so on), from /proc. */
async function descendants(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (let next = [pid]; next.length;) {
    const children = (await Promise.all(next.map((p) => childPids(p)))).flat();
    found.push(...children);
    next = children;
  }
  return found;
}

/** Whether a pid is a live process (a zombie has ended: only its parent has not read its status yet). */
function running(pid: number): boolean {
  try {
    return /State:\s+(\S)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] !== 'Z';
  } catch {
    return false;
  }
}

/** A process as /proc tells it: its state, its parent and its command line. */
function described(pid: number): string {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => new RegExp(`${name}:\\s+(.*)`).exec(status)?.[1];
    return `${pid} (${field('State')}, parent ${field('PPid')}): ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim()}`;
  } catch {
    return `${pid} (gone)`;
  }
}

function configWith(marker: string): string {
  const config = join(tempDir(), 'mcpkit.yaml');
  const probe = (extra: object = {}) => ({ command: process.execPath, args: [PROBE, '--marker', marker], ...extra });
  writeFileSync(config, JSON.stringify({ mcp_servers: { plain: probe(), ...(bwrap ? { boxed: probe({ sandbox: true }) } : {}) } }));
  return config;
}

describe('no orphans', () => {
  it('bubblewrap can make a box here, where it is required', () => {
    if (BWRAP_REQUIRED) expect(bwrap, `${NO_BWRAP} (MCPKIT_BWRAP=required or CI=true)`).toBe(true);
  });

  it.for(['SIGTERM', 'SIGINT', 'SIGKILL', 'stdin closed'] as const)('serve ended by %s leaves nothing it started', async (how, ctx) => {
    if (how === 'SIGKILL' && !bwrap) {
      // Without a pid namespace a killed serve cannot end its servers' own children: nothing to check.
      if (BWRAP_REQUIRED) expect.fail(`a killed serve cannot be checked: ${NO_BWRAP}`);
      return ctx.skip();
    }
    const marker = `300.${Date.now() % 100000}${Math.floor(Math.random() * 1000)}`;
    const served = await serveStdioClient(configWith(marker));
    for (const server of ['plain', ...(bwrap ? ['boxed'] : [])]) await served.client.callTool({ name: `${server}__spawn_child`, arguments: {} });
    // Each server and its child (and bubblewrap around each) carry the marker, and are serve's own.
    const marked = withMarker(marker);
    expect(marked.length).toBeGreaterThanOrEqual(bwrap ? 4 : 2);
    const below = await descendants(served.pid);
    expect(below).toEqual(expect.arrayContaining(marked));
    if (how === 'stdin closed') await served.transport.close();
    else process.kill(served.pid, how);
    await waitFor(() => !alive(served.pid) && withMarker(marker).length === 0 && !below.some(running), 10_000);
    expect(alive(served.pid), 'serve itself is still running').toBe(false);
    expect(withMarker(marker).map(described), `left running after ${how}`).toEqual([]);
    expect(below.filter(running).map(described), `serve's processes left running after ${how}`).toEqual([]);
  });

  it('Ctrl-C during `mcpkit call --no-daemon` ends the call and everything its server started', async () => {
    const marker = `300.${Date.now() % 100000}${Math.floor(Math.random() * 1000)}`;
    const config = configWith(marker);
    // A group of its own, as a shell's foreground job: Ctrl-C is SIGINT to every process of the group.
    const child = spawnTracked(process.execPath, [BIN, 'call', 'plain__slow', '--no-daemon', '--config', config], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let said = '';
    child.stderr.on('data', (d) => (said += d));
    expect(await waitFor(() => withMarker(marker).length >= 2, 15_000)).toBe(true);
    process.kill(-child.pid!, 'SIGINT');
    expect(await waitFor(() => child.exitCode !== null || child.signalCode !== null, 10_000)).toBe(true);
    // An orphan stays; a server still ending on a loaded machine goes within the window. What is
    // left is named with its state (one failure under a full suite's load left no trace of what).
    await waitFor(() => withMarker(marker).length === 0, 20_000);
    expect(withMarker(marker).map(described), `left running after Ctrl-C; the call said: ${said}`).toEqual([]);
  });
});
