import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, tempDir } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { waitFor } from '../helpers/upstreams.js';

/**
 * serve over stdio has one client, about to list the tools: its servers start with serve, beside
 * the client's handshake, so the first tools/list does not wait for them to start. They start in
 * the era most clients speak; a 2026-07-28 client puts those to sleep and is served by its own.
 */
const PROBE = join(ROOT, 'test/fixtures/probe-server.mjs');
/** The processes started, each named by a line, and those of them that ended. */
const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);
const pids = (file: string) => lines(file).filter((l) => !l.startsWith('ended '));
const ended = (file: string, id: string) => lines(file).includes(`ended ${id}`);

function project() {
  const dir = tempDir();
  const log = join(dir, 'starts.log');
  writeFileSync(log, '');
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(config, JSON.stringify({ mcp_servers: { probe: { command: process.execPath, args: [PROBE], env: { STARTS_LOG: log } } } }));
  return { config, log };
}

describe('serve over stdio starts its servers with itself', () => {
  it('a 2025 client finds them started, and its listing starts nothing more', async () => {
    const { config, log } = project();
    const served = await serveStdioInProcess({ config, env: cleanEnv() });
    try {
      expect(await waitFor(() => pids(log).length === 1, 10_000), 'started before any listing').toBe(true);
      expect((await served.client.listTools()).tools.map((t) => t.name)).toContain('probe__whoami');
      expect(pids(log)).toHaveLength(1);
    } finally {
      await served.close();
    }
  });

  it('a 2026-07-28 client: the servers started for a 2025 one go to sleep, its own serve it', async () => {
    const { config, log } = project();
    const client = new Client({ name: 'new', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' as const } } });
    const served = await serveStdioInProcess({ config, env: cleanEnv(), client });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('probe__whoami');
      // Two started (the one warmed for a 2025 client, and the client's own, in either order on a busy machine), and one of them ends.
      expect(await waitFor(() => pids(log).length === 2, 10_000)).toBe(true);
      const stillUp = () => pids(log).filter((id) => !ended(log, id));
      expect(await waitFor(() => stillUp().length === 1, 10_000), 'the process warmed for a 2025 client ends').toBe(true);
      expect(JSON.stringify(await client.callTool({ name: 'probe__whoami', arguments: {} }))).toContain('pid');
      expect(stillUp()).toHaveLength(1);
      expect(pids(log)).toHaveLength(2);
    } finally {
      await served.close();
    }
  });
});
