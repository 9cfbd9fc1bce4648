import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli } from '../helpers/cli.js';
import { writeConfig } from '../helpers/upstreams.js';

/** Secrets never appear in messages, results or logs (issue 18, 6). */
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
      runCli(['registry', 'list'], { env }),
      runCli(['registry', 'list', '--json'], { env }),
      runCli(['arango', 'status', '--json'], { env }),
      runCli(['arango', 'query', 'RETURN 1'], { env }),
      runCli(['server', 'test', 'remote'], { env }),
      runCli(['tools', '--json'], { env }),
    ]);
    for (const r of outputs) {
      const all = r.stdout + r.stderr;
      expect(all).not.toContain(KEY);
      expect(all).not.toContain(PASS);
    }
    // The errors are still there, with the secret masked.
    expect(outputs[0]!.stderr).toMatch(/UNAVAILABLE|TIMEOUT/);
    expect(outputs[2]!.stdout).toContain('****');
  }, 60_000);

  it("stay out of MCP results and serve's log", async () => {
    let stderr = '';
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve'], env: env as Record<string, string>, stderr: 'pipe' });
    transport.stderr?.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'secrets', version: '1' });
    await client.connect(transport);
    try {
      const texts = [
        JSON.stringify(await client.callTool({ name: 'list_servers', arguments: {} })),
        JSON.stringify(await client.callTool({ name: 'arango_database_status', arguments: {} })),
        JSON.stringify(await client.callTool({ name: 'server_test', arguments: { name: 'remote' } })),
        JSON.stringify(await client.listTools()),
      ];
      for (const text of [...texts, stderr]) {
        expect(text).not.toContain(KEY);
        expect(text).not.toContain(PASS);
      }
    } finally {
      await client.close();
    }
  }, 60_000);
});
