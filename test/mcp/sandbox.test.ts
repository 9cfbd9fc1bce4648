import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostFacts } from '../../src/proxy/sandbox/host-facts.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';
import { SERVERS } from '../helpers/upstreams.js';

/**
 * A stdio server in a box gets only what its entry names, not the files and variables of the person running mcpkit: each check
 * runs the same probe server with and without `sandbox`, so the box is what makes the difference.
 * Skipped, saying so, where bubblewrap cannot be used (CI installs it).
 */
const facts = hostFacts(process.env);
const usable = facts.bwrap !== undefined;
if (!usable) console.warn(`skipped: the sandbox tests (bubblewrap cannot be used here: ${facts.bwrapProblem})`);

const PROBE = { command: process.execPath, args: [join(ROOT, 'test/fixtures/probe-server.mjs')] };

let listener: Server;
let port = 0;
beforeAll(async () => {
  listener = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
  port = (listener.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

async function probe(entries: Record<string, object>) {
  const dir = tempDir();
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(config, JSON.stringify({ mcp_servers: entries }));
  const served = await serveHttpInProcess(config);
  const client = new Client({ name: 'sandbox', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
    return r.content[0]!.text;
  };
  return { dir, served, call, close: async () => (await client.close(), await served.close()) };
}

describe.runIf(usable)('sandbox: true', () => {
  it('no network, loopback included: the same server reaches the port unboxed and not boxed', async () => {
    const p = await probe({ open: PROBE, boxed: { ...PROBE, sandbox: true } });
    try {
      expect(await p.call('open__connect', { port })).toBe('connected');
      expect(await p.call('boxed__connect', { port })).toMatch(/^error /);
    } finally {
      await p.close();
    }
  });

  it('network: true gives the host network back', async () => {
    const p = await probe({ boxed: { ...PROBE, sandbox: { network: true } } });
    try {
      expect(await p.call('boxed__connect', { port })).toBe('connected');
    } finally {
      await p.close();
    }
  });

  it('reads only the system, what its command names, and read: paths; writes only under write: paths', async () => {
    const outside = tempDir();
    const readable = tempDir();
    const writable = tempDir();
    writeFileSync(join(outside, 'secret.txt'), 'not for the box');
    writeFileSync(join(readable, 'notes.txt'), 'for the box');
    const entry = (sandbox?: object) => ({ ...PROBE, ...(sandbox ? { sandbox } : {}) });
    const p = await probe({ open: entry(), boxed: entry({ read: [readable], write: [writable] }) });
    try {
      expect(await p.call('open__read', { path: join(outside, 'secret.txt') })).toMatch(/^read /);
      expect(await p.call('boxed__read', { path: join(outside, 'secret.txt') })).toBe('error ENOENT');
      expect(await p.call('boxed__read', { path: join(readable, 'notes.txt') })).toMatch(/^read /);
      expect(await p.call('boxed__read', { path: '/etc/hostname' })).toMatch(/^read /);
      // /etc/shadow is hidden (an empty file in its place, or none to read).
      if (existsSync('/etc/shadow')) expect(await p.call('boxed__read', { path: '/etc/shadow' })).toMatch(/^(read 0 characters|error E(ACCES|NOENT))$/);
      expect(await p.call('boxed__write', { path: join(readable, 'new.txt') })).toMatch(/^error E(ROFS|ACCES|PERM)/);
      expect(await p.call('boxed__write', { path: join(writable, 'new.txt') })).toBe('wrote');
      expect(readFileSync(join(writable, 'new.txt'), 'utf8')).toContain('probe');
      expect(await p.call('open__write', { path: join(outside, 'new.txt') })).toBe('wrote');
      expect(await p.call('boxed__write', { path: join(outside, 'other.txt') })).toMatch(/^error /);
    } finally {
      await p.close();
    }
  });

  it("the home folder is empty but for the npm cache, and mcpkit's config folder is not there", async () => {
    const home = homedir();
    const p = await probe({ open: PROBE, boxed: { ...PROBE, sandbox: true } });
    try {
      const unboxed = JSON.parse(await p.call('open__list', { path: home })) as string[];
      expect(unboxed.length).toBeGreaterThan(0);
      const boxed = JSON.parse(await p.call('boxed__list', { path: home })) as string[];
      expect(boxed.filter((n) => n !== '.npm')).toEqual([]);
      expect(await p.call('boxed__list', { path: p.dir })).toMatch(/^error ENOENT/);
    } finally {
      await p.close();
    }
  });

  it('a reference server from node_modules works in the box', async () => {
    const p = await probe({ mem: { ...SERVERS.memoryProcess, env: { MEMORY_FILE_PATH: '/tmp/memory.json' }, sandbox: true } });
    try {
      expect(await p.call('mem__read_graph')).toContain('entities');
    } finally {
      await p.close();
    }
  });
});

describe('a sandbox that cannot be made', () => {
  it('is refused with what to install or how to run unboxed on purpose, never run unboxed', async () => {
    const empty = tempDir();
    mkdirSync(join(empty, 'bin'));
    symlinkSync(process.execPath, join(empty, 'bin', 'node'));
    const saved = process.env.PATH;
    // A PATH with node but no bwrap.
    process.env.PATH = join(empty, 'bin');
    try {
      const p = await probe({ boxed: { ...PROBE, sandbox: true } });
      try {
        await expect(p.call('whoami')).rejects.toThrow(/Unknown tool/);
        const [status] = p.served.runtime.serving.upstreamStatus() as { state: string; error?: string }[];
        expect(status).toMatchObject({
          state: 'down',
          error: expect.stringMatching(/bubblewrap cannot be used: bwrap is not on the PATH.*apt install bubblewrap.*sandbox: false/s),
        });
        const called = await fetch(`${p.served.url}/health`).then((r) => r.json());
        expect(called).toMatchObject({ status: 'degraded' });
      } finally {
        await p.close();
      }
    } finally {
      process.env.PATH = saved;
    }
  });
});

describe('limits', () => {
  it.runIf(facts.prlimit !== undefined)('a server over its memory limit dies alone: its call is UNAVAILABLE, the others answer', async () => {
    const p = await probe({ small: { ...PROBE, limits: { memory_mb: 150 } }, other: PROBE });
    try {
      expect(await p.call('small__alloc', { mb: 50 })).toBe('holding 50 MiB');
      const over = await p.call('small__alloc', { mb: 400 });
      expect(over).toMatch(/UNAVAILABLE/);
      expect(await p.call('other__alloc', { mb: 400 })).toBe('holding 400 MiB');
    } finally {
      await p.close();
    }
  });
});
