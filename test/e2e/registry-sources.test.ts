import type { CallToolResult } from '@modelcontextprotocol/client';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir, runCommand } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { startRegistry } from '../fixtures/registry-server.mjs';

/** Naming a registry by its URL: for one command (--registry URL), or in the config (registry source add), as a person would name any server. */
let registry: Awaited<ReturnType<typeof startRegistry>>;
let file: string;
let env: NodeJS.ProcessEnv;
const ORIGINAL = '# my registries\nregistry:\n  retries: 0\n';

beforeAll(async () => {
  registry = await startRegistry();
  file = join(tempDir('mcpkit-registry-sources-'), 'mcpkit.yaml');
  writeFileSync(file, ORIGINAL);
  env = cleanEnv({ MCPKIT_CONFIG: file });
});
afterAll(() => registry.close());

const json = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
  const r = await runCommand([...args, '--json'], { env: { ...env, ...extraEnv } });
  return { code: r.code, body: JSON.parse(r.stdout || '{}') as Record<string, any>, stderr: r.stderr };
};

describe('a registry named by URL', () => {
  it('--registry URL reaches it for one command, with nothing in the config', async () => {
    const before = registry.control.requests.length;
    const listed = await json(['registry', 'list', '--registry', registry.url, '--limit', '2']);
    expect(listed.code).toBe(0);
    expect(listed.body.servers.length).toBe(2);
    expect(registry.control.requests.length).toBeGreaterThan(before);
    expect(readFileSync(file, 'utf8')).toBe(ORIGINAL);
    const bad = await json(['registry', 'list', '--registry', 'ftp://example.com']);
    expect(bad.code).toBe(2);
    expect(bad.body.error.message).toContain('not an http(s) URL');
  });

  it('registry source add / list / remove edit the config, keeping its comments; a refused edit changes nothing', async () => {
    const added = await json(['registry', 'source', 'add', 'mine', registry.url, '--default']);
    expect(added.body).toMatchObject({ registry: 'mine', replaced: false, default: true });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# my registries');
    expect(text).toMatch(/default: mine/);
    // The default now goes there.
    const before = registry.control.requests.length;
    expect((await json(['registry', 'list', '--limit', '1'])).code).toBe(0);
    expect(registry.control.requests.length).toBeGreaterThan(before);
    const listed = await json(['registry', 'source', 'list']);
    expect(listed.body.default).toBe('mine');
    expect(listed.body.registries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'mine', url: registry.url, default: true, source: 'config' }),
        expect.objectContaining({ name: 'official', default: false, source: 'built in' }),
      ]),
    );
    // Refusals leave the file byte for byte as it was.
    const written = readFileSync(file, 'utf8');
    for (const args of [
      ['registry', 'source', 'add', 'mine', 'https://other.example'], // exists, no --force
      ['registry', 'source', 'add', 'other', 'not a url'],
      ['registry', 'source', 'add', 'bad name!', 'https://x.example'],
      ['registry', 'source', 'remove', 'official'], // built in
      ['registry', 'source', 'remove', 'mien'],
    ]) {
      const r = await json(args);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.body.error.code).toMatch(/CONFLICT|INVALID_INPUT|NOT_FOUND/);
      expect(readFileSync(file, 'utf8')).toBe(written);
    }
    expect((await json(['registry', 'source', 'remove', 'mien'])).body.error.hint).toContain('mine');
    const removed = await json(['registry', 'source', 'remove', 'mine']);
    expect(removed.body).toMatchObject({ registry: 'mine', was_default: true });
    expect(readFileSync(file, 'utf8')).not.toContain('mine');
    expect((await runCommand(['config', 'validate'], { env })).code).toBe(0);
  });

  it('over MCP a URL is refused: an agent names the configured registries', async () => {
    const { client } = await serveStdioInProcess({ argv: ['--exposure', 'direct'], env, name: 'registry-sources' });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('registry_source_add'); // admin tools are off
      const r = (await client.callTool({ name: 'list_servers', arguments: { registry: registry.url } })) as CallToolResult;
      expect(r.isError).toBe(true);
      expect((r.structuredContent as { error: { code: string; hint: string } }).error).toMatchObject({ code: 'INVALID_INPUT' });
    } finally {
      await client.close();
    }
  });
});

describe('one registry source with an unset key', () => {
  it('harms that source only: the others list, source list says why, config show --resolved shows the rest', async () => {
    const own = join(tempDir('mcpkit-registry-unset-'), 'mcpkit.yaml');
    writeFileSync(
      own,
      `registry:\n  retries: 0\n  sources:\n    good: { url: "${registry.url}" }\n    keyed: { url: "${registry.url}", api_key: "\${MCPKIT_TEST_UNSET_KEY}" }\n`,
    );
    const ownEnv = cleanEnv({ MCPKIT_CONFIG: own });
    const run = async (args: string[]) => {
      const r = await runCommand([...args, '--json'], { env: ownEnv });
      return { code: r.code, body: JSON.parse(r.stdout || '{}') as Record<string, any> };
    };
    const good = await run(['registry', 'list', '--registry', 'good', '--limit', '1']);
    expect(good.code).toBe(0);
    expect(good.body.servers).toHaveLength(1);
    const keyed = await run(['registry', 'list', '--registry', 'keyed']);
    expect(keyed.code).toBe(1);
    expect(keyed.body.error).toMatchObject({
      code: 'CONFIG_INVALID',
      message: 'Registry source "keyed" needs MCPKIT_TEST_UNSET_KEY (its api_key uses ${MCPKIT_TEST_UNSET_KEY}), which is not set.',
    });
    const sources = await run(['registry', 'source', 'list']);
    expect(sources.code).toBe(0);
    const byName = Object.fromEntries((sources.body.registries as { name: string }[]).map((s) => [s.name, s]));
    expect(byName.good).toMatchObject({ url: registry.url });
    expect(byName.keyed).toMatchObject({ problems: [expect.stringContaining('MCPKIT_TEST_UNSET_KEY is not set')] });
    const shown = await run(['config', 'show', '--resolved']);
    expect(shown.code).toBe(0);
    expect(shown.body.set_aside).toEqual({ 'registry.sources.keyed': [expect.stringContaining('MCPKIT_TEST_UNSET_KEY')] });
    expect(shown.body.config.registry.sources.keyed).toEqual({ url: registry.url, api_key: '${MCPKIT_TEST_UNSET_KEY}' });
    expect(shown.body.config.registry.retries).toBe(0);
  });
});
