import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { implicitRoot } from '../../src/tools/retrieve/shared.js';
import { tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';

/**
 * Roots a client did not choose are not served in silence, and what listings leave out is not
 * read by agents either.
 */
function project(configText = '') {
  const dir = tempDir();
  mkdirSync(join(dir, '.ssh'));
  writeFileSync(join(dir, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n');
  writeFileSync(join(dir, '.env'), 'API_KEY=sk-live-123\n');
  writeFileSync(join(dir, '.gitignore'), 'secrets/\n*.log\n');
  mkdirSync(join(dir, 'secrets'));
  writeFileSync(join(dir, 'secrets', 'prod.txt'), 'prod password\n');
  writeFileSync(join(dir, 'debug.log'), 'a log\n');
  writeFileSync(join(dir, 'only-in-the-project.md'), '# the project\n');
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(config, configText);
  return { dir, config };
}

async function agent(config: string) {
  const served = await serveHttpInProcess(config);
  const client = new Client({ name: 'reader', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
    return JSON.parse(r.content[0]!.text) as { error?: { code: string; message: string }; result?: unknown; meta?: unknown };
  };
  return { served, client, call, close: async () => (await client.close(), await served.close()) };
}

describe('the root serve reads without retrieve.roots', () => {
  it("is the config file's folder, not where the client started serve, and serve says so at start", async () => {
    const { dir, config } = project();
    const a = await agent(config);
    try {
      const listed = await a.call('list_dir', { path: 'code' });
      expect(JSON.stringify(listed.result)).toContain('only-in-the-project.md');
      expect(a.served.lines.join('\n')).toContain(`retrieve reads code=${dir} (this config file's folder)`);
    } finally {
      await a.close();
    }
  });

  it.each<[string, { surface: 'cli' | 'mcp'; cwd: string; source: 'flag' | 'env' | 'cwd' | 'user'; exists: boolean }, 'cwd' | 'config' | 'none']>([
    ['a terminal: where it runs', { surface: 'cli', cwd: '/somewhere', source: 'user', exists: false }, 'cwd'],
    ['serve with a project config', { surface: 'mcp', cwd: '/', source: 'flag', exists: true }, 'config'],
    ['serve with ./mcpkit.yaml', { surface: 'mcp', cwd: '/', source: 'cwd', exists: true }, 'config'],
    ['serve with the user config only', { surface: 'mcp', cwd: '/home/u', source: 'user', exists: true }, 'none'],
    ['serve without any config file', { surface: 'mcp', cwd: '/', source: 'env', exists: false }, 'none'],
  ])('%s', (_what, c, expected) => {
    const dir = tempDir();
    const path = join(dir, 'mcpkit.yaml');
    if (c.exists) writeFileSync(path, '');
    const root = implicitRoot({ surface: c.surface, cwd: c.cwd, configLocation: { path, source: c.source }, env: { XDG_CONFIG_HOME: tempDir() } });
    expect(root).toBe(expected === 'cwd' ? c.cwd : expected === 'config' ? dir : undefined);
  });

  it("mcpkit's own config folder is no root, even named with --config", () => {
    const xdg = tempDir();
    mkdirSync(join(xdg, 'mcpkit'));
    const path = join(xdg, 'mcpkit', 'config.yaml');
    writeFileSync(path, '');
    expect(implicitRoot({ surface: 'mcp', cwd: '/', configLocation: { path, source: 'flag' }, env: { XDG_CONFIG_HOME: xdg } })).toBeUndefined();
  });

  it('over MCP, the config file itself is not read through a root (config_show masks its secrets)', async () => {
    const { config } = project('retrieve:\n  roots:\n    code: { path: ., hidden: true }\nserve:\n  allowed_origins: []\n');
    const a = await agent(config);
    try {
      expect((await a.call('open_file', { path: 'code/mcpkit.yaml' })).error).toMatchObject({
        code: 'PATH_HIDDEN',
        message: expect.stringContaining('config_show'),
      });
    } finally {
      await a.close();
    }
  });
});

describe('over MCP, dotfiles and ignored files are not read unless their root opts in', () => {
  it.each([
    ['open_file of a key in a dot-folder', 'open_file', { path: 'code/.ssh/id_rsa' }],
    ['open_file of a dotfile', 'open_file', { path: 'code/.env' }],
    ['get_snippet of a dotfile', 'get_snippet', { path: 'code/.env', start: 1, end: 1 }],
    ['open_file of an ignored file', 'open_file', { path: 'code/debug.log' }],
    ['open_file in an ignored folder', 'open_file', { path: 'code/secrets/prod.txt' }],
    ['list_dir of a dot-folder', 'list_dir', { path: 'code/.ssh' }],
    ['list_dir with hidden', 'list_dir', { path: 'code', hidden: true }],
    ['list_dir with ignored', 'list_dir', { path: 'code', ignored: true }],
    ['search with hidden', 'search', { query: 'PRIVATE KEY', hidden: true }],
    ['find_files with hidden', 'find_files', { glob: '**/id_rsa', hidden: true }],
  ])('%s is PATH_HIDDEN', async (_what, tool, args) => {
    const { config } = project('retrieve:\n  roots:\n    code: .\n');
    const a = await agent(config);
    try {
      const r = await a.call(tool, args);
      expect(r.error?.code).toBe('PATH_HIDDEN');
      expect(r.error?.message).toContain('root "code"');
      expect(JSON.stringify(r)).not.toMatch(/PRIVATE KEY-----|sk-live|prod password/);
    } finally {
      await a.close();
    }
  });

  it('a root with hidden: true serves them', async () => {
    const { config } = project('retrieve:\n  roots:\n    code: { path: ., hidden: true }\n');
    const a = await agent(config);
    try {
      expect(JSON.stringify(await a.call('open_file', { path: 'code/.env' }))).toContain('sk-live-123');
      expect(JSON.stringify(await a.call('search', { query: 'PRIVATE KEY', hidden: true }))).toContain('id_rsa');
      expect(a.served.lines.join('\n')).toMatch(/retrieve reads code=.* \(retrieve\.roots, dotfiles too\)/);
    } finally {
      await a.close();
    }
  });
});
