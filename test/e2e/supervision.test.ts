import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, spawnTracked, stopChild, type PipedChild } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { FIXTURE_SERVERS, alive, childPidsNamed, freePort, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * Supervision a shared gateway's users can trust: an upstream that dies mid-session (kill -9 of a
 * stdio server; a streamable HTTP server killed and started again on its port, so its sessions are
 * gone) is connected again, and the clients of serve --http carry on without reconnecting
 * themselves, in both eras; /health says how each upstream stands meanwhile. serve runs in this
 * process (helpers/in-process.ts: `serve --http`'s code, with an environment of its own), so its
 * stdio upstreams are this process's children: what is asked is how it supervises them, not its process.
 */

const MODERN = FIXTURE_SERVERS.modern;

async function startRemote(port: number): Promise<PipedChild> {
  const child = spawnTracked(process.execPath, [MODERN, '--port', String(port)], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  if (!(await waitFor(() => out.includes('/mcp') || child.exitCode !== null, 10_000))) throw new Error('the remote fixture did not start');
  return child;
}

let port: number;
let remote: PipedChild;
let served: InProcessServe;
const clients: Client[] = [];

beforeAll(async () => {
  port = await freePort();
  remote = await startRemote(port);
  served = await serveHttpInProcess(writeConfig({ mcp_servers: { everything: SERVERS.everythingProcess, remote: { url: `http://127.0.0.1:${port}/mcp` } } }), {
    exposure: undefined,
    env: cleanEnv(),
  });
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled([remote && stopChild(remote), served?.close()]);
});

async function client(era: 'legacy' | 'modern'): Promise<Client> {
  const c = new Client({ name: `supervised-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await c.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
  clients.push(c);
  return c;
}

const echo = async (c: Client, tool: string, message: string) => JSON.stringify((await c.callTool({ name: tool, arguments: { message } })).content);

/** Calls until one answers, and says how many it took (the first call after a restart should). */
async function callsUntilAnswered(c: Client, tool: string, message: string): Promise<number> {
  for (let n = 1; n <= 40; n++) {
    const answer = await echo(c, tool, message).catch((error: Error) => error.message);
    if (answer.includes(`Echo: ${message}`)) return n;
    await new Promise((r) => setTimeout(r, 250));
  }
  return Infinity;
}

interface Health {
  upstreams: { name: string; state: string; tools?: number; reconnect_attempts: number; error?: string; connections?: { era: string; state: string }[] }[];
}
/** The states of every connection to a server, per era where both eras have one. */
const states = async (name: string) => {
  const entry = (await health()).upstreams.find((u) => u.name === name);
  return entry?.connections?.map((c) => c.state) ?? (entry ? [entry.state] : []);
};
const health = async () => (await (await fetch(`${served.url}/health`)).json()) as Health;

describe('supervision', () => {
  it.each(['legacy', 'modern'] as const)(
    '%s: a stdio upstream killed with -9 is started again, and the session carries on',
    async (era) => {
      const c = await client(era);
      expect(await echo(c, 'everything__echo', 'before')).toContain('Echo: before');
      // serve's server-everything, this process's child (the file's other child is the remote fixture).
      const everything = await childPidsNamed(process.pid, 'server-everything');
      expect(everything.length).toBeGreaterThan(0);
      for (const pid of everything) process.kill(pid, 'SIGKILL');
      expect(await waitFor(() => everything.every((pid) => !alive(pid)), 5_000)).toBe(true);
      // /health says what happened once mcpkit has seen it, on each era's connection.
      expect(await waitFor(async () => (await states('everything')).every((s) => s !== 'ready'), 5_000)).toBe(true);
      expect(await callsUntilAnswered(c, 'everything__echo', `after ${era}`)).toBe(1);
      // The other era's connection, killed too, reconnects by itself.
      expect(await waitFor(async () => (await states('everything')).every((s) => s === 'ready'), 10_000)).toBe(true);
    },
    30_000,
  );

  it.each(['legacy', 'modern'] as const)(
    '%s: a remote upstream restarted (its sessions gone) is initialized again, and the session carries on',
    async (era) => {
      const c = await client(era);
      expect(await echo(c, 'remote__echo', 'before')).toContain('Echo: before');
      remote.kill('SIGKILL');
      await waitFor(() => remote.exitCode !== null || remote.signalCode !== null, 5_000);
      remote = await startRemote(port);
      expect(await callsUntilAnswered(c, 'remote__echo', `after ${era}`)).toBe(1);
      expect(await waitFor(async () => (await health()).upstreams.find((u) => u.name === 'remote')?.state === 'ready', 10_000)).toBe(true);
    },
    30_000,
  );
});
