import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/core/logger.js';
import { Upstream } from '../../../src/proxy/upstream/upstream.js';
import { ROOT, tempDir } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/upstreams.js';

describe('Upstream reconnects (a real process that fails to start, then recovers)', () => {
  it('fails fast with the stderr tail, gives up after the bounded attempts, and the next call starts a new round', async () => {
    const marker = join(tempDir(), 'fail');
    writeFileSync(marker, '');
    const lines: string[] = [];
    const upstream = new Upstream({
      name: 'flaky',
      config: { command: process.execPath, args: [join(ROOT, 'test/fixtures/flaky-server.mjs'), marker], timeout_ms: 10_000 },
      logger: createLogger('error', (line) => void lines.push(line)),
      version: 'test',
      env: process.env,
      stderr: () => {},
      backoff: { baseMs: 20, maxMs: 40, maxAttempts: 2, stableMs: 60_000 },
    });
    try {
      await expect(upstream.listTools()).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('flaky: failing on purpose') });
      expect(await waitFor(() => lines.some((l) => l.includes('giving up after 2 reconnect attempts')), 15_000)).toBe(true);
      expect(upstream.status()).toMatchObject({ state: 'down', reconnect_attempts: 2 });

      rmSync(marker);
      const started = Date.now();
      await expect(upstream.call({ name: 'echo', args: { message: 'x' } })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      // Still fails fast: refused, where a call that waited for the start (which now succeeds) would be
      // answered; and not held until the start's timeout (10 s): a quarter of it, for a loaded machine.
      expect(Date.now() - started).toBeLessThan(10_000 / 4);
      // ...but has started a new round of attempts, which now succeeds.
      expect(await waitFor(() => upstream.status().state === 'ready', 15_000)).toBe(true);
      const result = await upstream.call({ name: 'echo', args: { message: 'back' } });
      expect(JSON.stringify(result.content)).toContain('Echo: back');
    } finally {
      await upstream.close();
    }
  });
});

describe('the waiting notice names where its limit comes from', () => {
  it.each([
    [
      'a one-off look with a shorter limit says why',
      { timeout_ms: 20_000 },
      { ms: 3_000, why: 'the check of tool names waits no longer' },
      '(gives up after 3 s, the check of tool names waits no longer)',
    ],
    [
      'a limit longer than timeout_ms leaves the key named',
      { timeout_ms: 3_000 },
      { ms: 10_000, why: 'unused' },
      '(gives up after 3 s, mcp_servers.silent.timeout_ms)',
    ],
  ])(
    '%s',
    async (_what, config, limit, words) => {
      const said: string[] = [];
      const upstream = new Upstream({
        name: 'silent',
        config: { command: process.execPath, args: [join(ROOT, 'test/fixtures/silent-server.mjs')], ...config },
        logger: createLogger('error', () => {}),
        version: 'test',
        env: process.env,
        stderr: () => {},
        backoff: { baseMs: 20, maxMs: 40, maxAttempts: 0, stableMs: 60_000 },
        waiting: (message) => void said.push(message),
        limit,
      });
      try {
        const listing = upstream.listTools().catch((error: unknown) => error);
        expect(await waitFor(() => said.length > 0, 10_000)).toBe(true);
        expect(said).toEqual([`waiting for server silent to answer over stdio ${words}`]);
        await upstream.close();
        await listing;
      } finally {
        await upstream.close();
      }
    },
    20_000,
  );
});
