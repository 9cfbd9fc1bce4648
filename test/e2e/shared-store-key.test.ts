import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, runCommand, stopChild } from '../helpers/cli.js';
import { serveHttpChild } from '../helpers/serve.js';
import { freePort, writeConfig } from '../helpers/upstreams.js';

/**
 * serve --http with a store and no key to sign with (or a weak one) does not start, and says how
 * to make one; with one from the environment it starts, warning of a store reached without a
 * password or without TLS off this machine, and never shows the key. No redis-server is needed:
 * the key is checked before the store is reached, and required: false starts without it.
 */

describe('serve.store.key at start', () => {
  it('no key: serve --http stops, saying how to make one and where to put it', async () => {
    const config = writeConfig({ mcp_servers: {}, serve: { store: { url: `redis://127.0.0.1:${await freePort()}` } } });
    const r = await runCli(['serve', '--http', '--port', '0', '--config', config]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('serve.store.key is not set');
    expect(r.stderr).toContain('openssl rand -base64 32');
    expect(r.stderr).toContain('serve.store.key: "${MCPKIT_STORE_KEY}"');
    expect(r.stderr).not.toContain('listening on');
  });

  it('a weak key from the environment: refused, the key itself never shown', async () => {
    const config = writeConfig({
      mcp_servers: {},
      serve: { store: { url: `redis://127.0.0.1:${await freePort()}`, key: '${MCPKIT_STORE_KEY}', required: false } },
    });
    const r = await runCli(['serve', '--http', '--port', '0', '--config', config], { env: cleanEnv({ MCPKIT_STORE_KEY: 'hunter2-weak' }) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('serve.store.key is 12 characters long: it needs at least 32');
    expect(r.stderr).not.toContain('hunter2-weak');
  });

  it('a key from the environment: serve starts, warning of a store with no password and no TLS off this machine', async () => {
    const key = 'Wq3ZKx0rT8yPu5vB2nM7cL4jH9gF1dS6aE0iO3kR';
    const config = writeConfig({ mcp_servers: {}, serve: { store: { url: 'redis://cache.invalid:6379/0', key: '${MCPKIT_STORE_KEY}', required: false } } });
    const up = await serveHttpChild(config, [], { MCPKIT_STORE_KEY: key });
    try {
      expect(up.stderr()).toContain('serve.store has no password');
      expect(up.stderr()).toContain('serve.store is reached without TLS at cache.invalid');
      expect(up.stderr()).not.toContain(key);
      // What config show prints is what is tested, not its process: run in this one.
      const shown = await runCommand(['config', 'show', '--config', config], { env: cleanEnv({ MCPKIT_STORE_KEY: key }) });
      expect(shown.stdout).not.toContain(key);
      // Written in the file itself (not advised): config show masks it all the same.
      const literal = writeConfig({ mcp_servers: {}, serve: { store: { url: 'redis://127.0.0.1:6379', key } } });
      const masked = await runCommand(['config', 'show', '--config', literal]);
      expect(masked.stdout).toContain('"key": "********"');
      expect(masked.stdout).not.toContain(key);
    } finally {
      await stopChild(up.child);
    }
  }, 30_000);
});
