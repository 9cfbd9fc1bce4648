import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCommand, spawnTracked } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * view install as a team uses it: the stdio entry holds only what its view needs, and the HTTP
 * entry connects to the shared serve --http with the token clients add printed. mcporter (a real
 * MCP client from npm, a devDependency) runs each entry as written.
 */

const MCPORTER = join(ROOT, 'node_modules/mcporter/dist/cli.js');
const hasMcporter = existsSync(MCPORTER);

/** Everything the gateway's config names: a view's server, a disabled one, serve --http's tokens. */
const gateway = () =>
  writeConfig({
    mcp_servers: {
      github: { ...SERVERS.everything, env: { GITHUB_TOKEN: '${GH_TOKEN}' } },
      legacy: { url: 'https://legacy.example/mcp', headers: { 'X-Key': '${API_KEY}' }, disabled: true },
      other: { ...SERVERS.memory, env: { MEMORY_KEY: '${OTHER_KEY}' } },
    },
    tool_views: { research: { servers: ['github', 'legacy'] }, notes: { servers: ['other'] } },
    serve: { token: '${ADMIN_TOKEN}', clients: { ops: { token: '${OPS_AGENT_TOKEN}' } } },
  });

/** Runs mcporter with one config file holding the entry, in a folder of its own. */
function mcporter(entry: unknown, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const dir = dirname(writeConfig({}));
  const file = join(dir, 'config', 'mcporter.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(entry));
  return new Promise((done, fail) => {
    // HOME in the folder: mcporter's own caches and home config stay inside the test's.
    const child = spawnTracked(process.execPath, [MCPORTER, ...args, '--config', file], {
      cwd: dir,
      env: cleanEnv({ HOME: dir, ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', fail);
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, out });
    });
  });
}

describe('view install over stdio', () => {
  it("asks only for the variables of the view's own enabled servers: not serve's tokens, another view's, or a disabled server's", async () => {
    const file = gateway();
    for (const client of ['claude', 'cursor', 'claude-code', 'vscode', 'mcporter']) {
      const r = await runCommand(['view', 'install', 'research', '--client', client, '--config', file, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { env_needed: string[]; form: string };
      expect(out).toMatchObject({ form: 'stdio', env_needed: ['GH_TOKEN'] });
      expect(r.stdout).not.toMatch(/ADMIN_TOKEN|OPS_AGENT_TOKEN|API_KEY|OTHER_KEY/);
    }
  }, 30_000);

  it.skipIf(!hasMcporter)(
    'the mcporter entry, run as written with GH_TOKEN alone, starts serve and calls through it',
    async () => {
      const file = gateway();
      const r = await runCommand(['view', 'install', 'research', '--client', 'mcporter', '--config', file, '--json']);
      const { snippet } = JSON.parse(r.stdout) as { snippet: unknown };
      const called = await mcporter(snippet, ['call', 'mcpkit-research.github__echo', 'message=over stdio'], { GH_TOKEN: 'gh-value' });
      expect(called.out).toContain('Echo: over stdio');
      expect(called.code).toBe(0);
    },
    60_000,
  );
});

describe('view install --url: the shared gateway', () => {
  let served: InProcessServe | undefined;
  let file: string;
  // The gateway is `mcpkit serve --http --config FILE` with the team's variables, in this process:
  // what is asked is what view install prints for it and that a client gets through it with the
  // token clients add printed, not serve's process (its argv, signals and exit are other files').
  // Its exposure is left to the config, as the command line leaves it.
  beforeAll(async () => {
    file = gateway();
    served = await serveHttpInProcess(file, {
      exposure: undefined,
      env: cleanEnv({ GH_TOKEN: 'gh-value', ADMIN_TOKEN: 'admin-value', OPS_AGENT_TOKEN: 'ops-value', OTHER_KEY: 'k', API_KEY: 'a' }),
    });
  });
  afterAll(async () => {
    await served?.close();
  });

  it('names the view URL and one token variable, for each client', async () => {
    const r = await runCommand([
      'view',
      'install',
      'research',
      '--client',
      'claude-code',
      '--url',
      served!.url,
      '--token-env',
      'RESEARCH_TOKEN',
      '--config',
      file,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      mcpServers: { 'mcpkit-research': { type: 'http', url: `${served!.url}/view/research/mcp`, headers: { Authorization: 'Bearer ${RESEARCH_TOKEN}' } } },
    });
    expect(r.stderr).toContain(
      `claude mcp add --scope project --transport http mcpkit-research ${served!.url}/view/research/mcp --header 'Authorization: Bearer \${RESEARCH_TOKEN}'`,
    );
    const bad = await runCommand(['view', 'install', 'research', '--url', 'ftp://x', '--config', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('url is the http(s) address');
  }, 30_000);

  it.skipIf(!hasMcporter)(
    'mcporter connects with the token clients add printed, and is refused with another',
    async () => {
      const reloadsBefore = served!.reloads.length;
      const added = await runCommand(['clients', 'add', 'researcher', '--view', 'research', '--config', file], {
        env: cleanEnv({ GH_TOKEN: 'gh-value', ADMIN_TOKEN: 'admin-value', OPS_AGENT_TOKEN: 'ops-value' }),
      });
      expect(added.code, added.stderr).toBe(0);
      const token = added.stdout.trim();
      const r = await runCommand([
        'view',
        'install',
        'research',
        '--client',
        'mcporter',
        '--url',
        served!.url,
        '--token-env',
        'RESEARCH_TOKEN',
        '--config',
        file,
        '--json',
      ]);
      const { snippet } = JSON.parse(r.stdout) as { snippet: unknown };
      // serve follows the config: the new client is known once it has read the file again (waited
      // for, so that no mcporter process is spent on a token not yet known), else within a moment.
      await waitFor(() => served!.reloads.length > reloadsBefore, 20_000);
      let called = { code: null as number | null, out: '' };
      for (let attempt = 0; attempt < 20; attempt++) {
        called = await mcporter(snippet, ['call', 'mcpkit-research.github__echo', 'message=over http'], { RESEARCH_TOKEN: token });
        if (called.out.includes('Echo: over http')) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(called.out).toContain('Echo: over http');
      const refused = await mcporter(snippet, ['call', 'mcpkit-research.github__echo', 'message=x'], { RESEARCH_TOKEN: 'mcpk_not-a-token' });
      expect(refused.out).not.toContain('Echo: x');
    },
    120_000,
  );
});
