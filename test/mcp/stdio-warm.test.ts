import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, tempDir } from '../helpers/cli.js';
import { PassThrough } from 'node:stream';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { startStdioServe } from '../../src/mcp/run-serve.js';
import { waitFor } from '../helpers/upstreams.js';

/**
 * serve over stdio has one client, about to list the tools: its servers start as its opening
 * request is read (usually while serve is still starting), so the first tools/list does not wait
 * for them. They start once, with the connections that client uses: its era's shared ones, or its
 * own once it is connected when it declares what a server may ask of it (sampling, elicitation,
 * roots). Started at serve's start for the most common client, they ran twice for every other one.
 */
const PROBE = join(ROOT, 'test/fixtures/probe-server.mjs');
/** The processes started, each named by a line, those of them that ended, and what each was offered. */
const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);
const pids = (file: string) => lines(file).filter((l) => !l.startsWith('ended ') && !l.startsWith('offered '));
const offered = (file: string) => lines(file).flatMap((l) => (l.startsWith('offered ') ? [l.split(' ')[2] ?? ''] : []));

function project() {
  const dir = tempDir();
  const log = join(dir, 'starts.log');
  writeFileSync(log, '');
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(config, JSON.stringify({ mcp_servers: { probe: { command: process.execPath, args: [PROBE], env: { STARTS_LOG: log } } } }));
  return { config, log };
}

const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

/** A client that declares roots, and answers a server that asks for them. */
function rootsClient(name: string): Client {
  const client = new Client({ name, version: '1' }, { capabilities: { roots: {} } });
  client.setRequestHandler('roots/list', async () => ({ roots: [] }));
  return client;
}

describe('serve over stdio starts its servers for the client its opening request shows, once', () => {
  it.each([
    ['a 2025 client', () => new Client({ name: 'old', version: '1' })],
    [
      'a 2025 client that declares roots, sampling and elicitation',
      () => new Client({ name: 'asks', version: '1' }, { capabilities: { roots: {}, sampling: {}, elicitation: {} } }),
    ],
    ['a 2026-07-28 client', () => new Client({ name: 'new', version: '1' }, MODERN)],
  ])('%s finds them started before its first listing, and nothing more starts', async (_who, make) => {
    const { config, log } = project();
    const client = make();
    const served = await serveStdioInProcess({ config, env: cleanEnv(), client });
    try {
      expect(await waitFor(() => pids(log).length === 1, 10_000), 'started before any listing').toBe(true);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('probe__whoami');
      expect(JSON.stringify(await client.callTool({ name: 'probe__whoami', arguments: {} }))).toContain('pid');
      expect(pids(log)).toHaveLength(1);
    } finally {
      await served.close();
    }
  });

  it("the one start is the client's own connection when it declares roots: the server is offered them", async () => {
    const { config, log } = project();
    const client = rootsClient('asks');
    const served = await serveStdioInProcess({ config, env: cleanEnv(), client });
    try {
      expect(await waitFor(() => offered(log).length === 1, 10_000)).toBe(true);
      expect(offered(log)[0]).toContain('roots');
      await client.listTools();
      expect(pids(log)).toHaveLength(1);
    } finally {
      await served.close();
    }
  });

  it('a client that pings before it initializes: its servers start on first use, with what it declared', async () => {
    const { config, log } = project();
    const client = rootsClient('pings');
    // The ping goes out first on the raw transport, before the SDK client's initialize.
    const served = await serveStdioInProcess({ config, env: cleanEnv(), client, pingFirst: true });
    try {
      await client.listTools();
      expect(pids(log)).toHaveLength(1);
      expect(offered(log)).toEqual(['roots']);
    } finally {
      await served.close();
    }
  });

  it('a failed initialize, then a request that takes its id, then a good one declaring roots: the server is offered roots', async () => {
    const { config, log } = project();
    const [input, output] = [new PassThrough(), new PassThrough()];
    let heard = '';
    output.on('data', (d: Buffer) => (heard += d.toString('utf8')));
    const answered = (id: number, times = 1) =>
      waitFor(() => heard.split('\n').filter((l) => l.includes(`"id":${id},`) || l.includes(`"id":${id}}`)).length >= times, 10_000);
    const send = (message: object) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const served = await startStdioServe(
      { configFlag: config, exposure: 'direct', version: '0.0.0-test', env: cleanEnv() },
      { input, output },
      () => undefined,
    );
    try {
      send({ id: 1, method: 'initialize', params: { protocolVersion: 123, capabilities: { roots: {} }, clientInfo: { name: 'c', version: '1' } } });
      expect(await answered(1)).toBe(true);
      send({ id: 1, method: 'ping' });
      expect(await answered(1, 2)).toBe(true);
      send({ id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'c', version: '1' } } });
      expect(await answered(2)).toBe(true);
      send({ method: 'notifications/initialized' });
      send({ id: 3, method: 'tools/list' });
      expect(await answered(3)).toBe(true);
      expect(pids(log)).toHaveLength(1);
      expect(offered(log)).toEqual(['roots']);
    } finally {
      input.end();
      await served.ended;
    }
  });

  it('with --no-eager, nothing starts before the first listing', async () => {
    const { config, log } = project();
    const served = await serveStdioInProcess({ config, env: cleanEnv(), flags: { eager: false } });
    try {
      // The client is connected (its opening request answered): a warm-up would have begun.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(pids(log)).toHaveLength(0);
      await served.client.listTools();
      expect(pids(log)).toHaveLength(1);
    } finally {
      await served.close();
    }
  });
});
