import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';
import { SERVERS } from '../helpers/upstreams.js';

/**
 * A stdio server gets only a small base environment and its own env:, never mcpkit's token,
 * another server's secret or anything else of the parent's (the daemon
 * compares the same base with its callers).
 */
const PLANTED = { MCPKIT_TOKEN: 'mcpkit-serve-token-1a2b3c', OTHER_SERVER_SECRET: 'other-secret-4d5e6f', UNRELATED_PARENT_VAR: 'unrelated-7a8b9c' };

describe('what a stdio server sees of the environment', () => {
  const saved: Record<string, string | undefined> = {};
  beforeAll(() => {
    for (const [k, v] of Object.entries(PLANTED)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterAll(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  async function envOf(entry: object): Promise<Record<string, string>> {
    const config = join(tempDir(), 'mcpkit.yaml');
    const servers = {
      everything: { ...SERVERS.everythingProcess, ...entry },
      other: { ...SERVERS.memory, env: { KEY: '${OTHER_SERVER_SECRET}' }, disabled: true },
    };
    writeFileSync(config, JSON.stringify({ mcp_servers: servers, serve: { token: '${MCPKIT_TOKEN}' } }));
    const served = await serveHttpInProcess(config);
    const client = new Client({ name: 'env', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${PLANTED.MCPKIT_TOKEN}` } } }),
    );
    try {
      const result = (await client.callTool({ name: 'everything__get-env', arguments: {} })) as { content: { text: string }[] };
      return JSON.parse(result.content[0]!.text) as Record<string, string>;
    } finally {
      await client.close();
      await served.close();
    }
  }

  it('by default: the base and the declared variables, nothing else', async () => {
    const env = await envOf({ env: { DECLARED: 'yes' } });
    expect(env.DECLARED).toBe('yes');
    expect(env.PATH).toBe(process.env.PATH);
    // PWD: the folder it runs in, which bubblewrap (where it starts servers) sets.
    const allowed = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'TMPDIR', 'TZ', 'DECLARED', 'PWD'];
    for (const name of Object.keys(env)) expect(allowed.includes(name) || name.startsWith('LC_'), name).toBe(true);
    expect(JSON.stringify(env)).not.toMatch(/mcpkit-serve-token|other-secret|unrelated-7a8b9c/);
  });

  it("inherit_env: true passes the rest, still without mcpkit's own and what the config names elsewhere", async () => {
    const env = await envOf({ inherit_env: true });
    expect(env.UNRELATED_PARENT_VAR).toBe(PLANTED.UNRELATED_PARENT_VAR);
    expect(env).not.toHaveProperty('MCPKIT_TOKEN');
    expect(env).not.toHaveProperty('OTHER_SERVER_SECRET');
  });

  it('inherit_env: a list passes those names', async () => {
    const env = await envOf({ inherit_env: ['UNRELATED_PARENT_VAR'] });
    expect(env.UNRELATED_PARENT_VAR).toBe(PLANTED.UNRELATED_PARENT_VAR);
    expect(env).not.toHaveProperty('OTHER_SERVER_SECRET');
  });
});
