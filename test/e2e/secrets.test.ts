import { describe, expect, it } from 'vitest';
import { cleanEnv, stopChild, runCommand } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { serveHttpChild } from '../helpers/serve.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/** Secrets never appear in messages, results or logs. */
const KEY = 'regkey-0123456789abcdef';
const PASS = 'arangopass-fedcba9876';
const config = writeConfig({
  registry: { default: 'mine', retries: 0, timeout_ms: 2000, sources: { mine: { url: 'http://127.0.0.1:9/reg?key=${E2E_REG_KEY}' } } },
  arango: { url: 'http://root:${E2E_ARANGO_PASS}@127.0.0.1:9', connect_retries: 1 },
  mcp_servers: { remote: { url: 'http://127.0.0.1:9/mcp?token=${E2E_REG_KEY}', timeout_ms: 1000 } },
});
const env = cleanEnv({ MCPKIT_CONFIG: config, E2E_REG_KEY: KEY, E2E_ARANGO_PASS: PASS, MCPKIT_LOG_LEVEL: 'debug' });

describe('secrets from ${VAR} and URLs', () => {
  it('stay out of terminal errors and results', async () => {
    const outputs = await Promise.all([
      runCommand(['registry', 'list'], { env }),
      runCommand(['registry', 'list', '--json'], { env }),
      runCommand(['arango', 'status', '--json'], { env }),
      runCommand(['arango', 'query', 'RETURN 1'], { env }),
      runCommand(['server', 'test', 'remote'], { env }),
      runCommand(['tools', '--json'], { env }),
    ]);
    for (const r of outputs) {
      const all = r.stdout + r.stderr;
      expect(all).not.toContain(KEY);
      expect(all).not.toContain(PASS);
    }
    // The errors are still there. The URL's credentials go into the connection, not the URL
    // fetch is given (it refuses those): the error names the database without them.
    expect(outputs[0]!.stderr).toMatch(/UNAVAILABLE|TIMEOUT/);
    expect(JSON.parse(outputs[2]!.stdout).error).toMatchObject({ code: 'DATABASE_UNAVAILABLE', details: { urls: ['http://127.0.0.1:9'] } });
  }, 60_000);

  it("stay out of MCP results and serve's log", async () => {
    const served = await serveStdioInProcess({ argv: [], env, name: 'secrets' });
    const { client } = served;
    try {
      const texts = [
        JSON.stringify(await client.callTool({ name: 'list_servers', arguments: {} })),
        JSON.stringify(await client.callTool({ name: 'arango_database_status', arguments: {} })),
        JSON.stringify(await client.callTool({ name: 'server_test', arguments: { name: 'remote' } })),
        JSON.stringify(await client.listTools()),
      ];
      for (const text of [...texts, served.stderr()]) {
        expect(text).not.toContain(KEY);
        expect(text).not.toContain(PASS);
      }
    } finally {
      await client.close();
    }
  }, 60_000);

  it("leave mcpkit's own words alone when a short secret is spelled the same", async () => {
    // The guide's example password (docs/guide/arango.md): a short secret is masked only where it stands as a secret.
    const short = writeConfig({ arango: { url: 'http://root:mcpkit@127.0.0.1:9', connect_retries: 1 } });
    const r = await runCommand(['arango', 'status'], { env: cleanEnv({ MCPKIT_CONFIG: short, ARANGO_PASSWORD: 'mcpkit' }) });
    expect(r.stderr).toMatch(/DATABASE_UNAVAILABLE/);
    expect(r.stderr).toMatch(/in the mcpkit clone/); // the hint's own words
    expect(r.stderr).not.toContain('****clone');
    for (const args of [
      ['config', 'show'],
      ['config', 'show', '--resolved', '--json'],
    ]) {
      const listed = await runCommand(args, { env: cleanEnv({ MCPKIT_CONFIG: short }) });
      expect(listed.stdout).toContain('root:********@127.0.0.1');
      expect(listed.stdout).not.toContain('root:mcpkit@');
    }
  }, 60_000);

  it("stay out of /health, serve's log, server test and retry lines, a line of a multi-line secret too", async () => {
    const SECRET = 'sk-live-0123456789abcdef';
    const PEM = ['-----BEGIN PRIVATE KEY-----', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj', '-----END PRIVATE KEY-----'].join('\n');
    // A server that prints its environment to stderr (as some do when they start), then serves.
    const leaky = (then: string[]) => ({
      command: 'sh',
      args: ['-c', 'echo "secret=$API_KEY" >&2; printf "%s\\n" "$PEM_KEY" >&2; [ $# -gt 0 ] && exec "$@"; exit 1', 'sh', ...then],
      env: { API_KEY: '${E2E_LEAK_KEY}', PEM_KEY: '${E2E_LEAK_PEM}' },
    });
    const file = writeConfig({
      mcp_servers: { leaky: leaky([SERVERS.everything.command, ...SERVERS.everything.args]), broken: leaky([]) },
      tool_views: { v: { servers: ['leaky'] } },
      registry: { default: 'mine', retries: 1, timeout_ms: 2000, sources: { mine: { url: 'http://127.0.0.1:9/reg?key=${E2E_LEAK_KEY}' } } },
    });
    const secrets = { E2E_LEAK_KEY: SECRET, E2E_LEAK_PEM: PEM };
    const leaked = (text: string) => [SECRET, ...PEM.split('\n').slice(1, 3)].filter((s) => text.includes(s));

    const { child, url, stderr } = await serveHttpChild(file, ['--eager'], { ...secrets, MCPKIT_LOG_LEVEL: 'debug' });
    try {
      let health = '';
      const seen = await waitFor(async () => {
        health = await (await fetch(`${url}/health`)).text();
        return /secret=/.test(health);
      }, 20_000);
      expect(seen, health).toBe(true); // the stderr lines are there, masked
      expect(leaked(health)).toEqual([]);
      expect(health).toContain('secret=****');
      expect(leaked(stderr())).toEqual([]);
    } finally {
      await stopChild(child);
    }
    const tested = await runCommand(['server', 'test', 'broken'], { env: cleanEnv({ MCPKIT_CONFIG: file, ...secrets }) });
    expect(tested.code).not.toBe(0);
    expect(tested.stdout + tested.stderr).toContain('secret=****');
    expect(leaked(tested.stdout + tested.stderr)).toEqual([]);
    const listed = await runCommand(['registry', 'list'], { env: cleanEnv({ MCPKIT_CONFIG: file, ...secrets }) });
    expect(listed.stderr).toMatch(/retrying/);
    expect(leaked(listed.stderr)).toEqual([]);
  }, 90_000);
});
