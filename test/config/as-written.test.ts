import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { configAsWritten } from '../../src/config/as-written.js';
import type { ConfigSource } from '../../src/config/locate.js';
import { inspectConfig } from '../../src/config/load.js';

/**
 * What a tab press reads of the config (config/as-written.ts): the file as a load's `raw` is, without
 * the load's checks or secrets, and a file the user named that is missing is the same error.
 */
describe('the config as written, for the names it gives', () => {
  const dir = tempDir('mcpkit-as-written-');
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  mkdirSync(join(dir, 'folder.yaml'));

  it.each<[string, ConfigSource]>([
    ['a valid file', { path: file('valid.yaml', 'mcp_servers:\n  alpha: { command: x }\ntool_views: { research: {} }\n'), source: 'flag' }],
    // A file the checks refuse still names what it names, placeholders as written.
    [
      'a file the checks refuse',
      { path: file('invalid.yaml', 'mcp_servers:\n  a: { args: [] }\n  b: { url: "${UNSET_HERE}" }\nserve: { port: -1 }\n'), source: 'env' },
    ],
    [
      'a secret named, not read',
      { path: file('secrets.yaml', 'mcp_servers:\n  gh: { url: "https://x.example/mcp", headers: { A: "${file:nope.txt}" } }\n'), source: 'flag' },
    ],
    ['YAML that does not parse', { path: file('broken.yaml', 'mcp_servers: [\n'), source: 'flag' }],
    ['a list, not a mapping', { path: file('list.yaml', '- a\n- b\n'), source: 'flag' }],
    ['an empty file', { path: file('empty.yaml', ''), source: 'flag' }],
    ['a folder', { path: join(dir, 'folder.yaml'), source: 'flag' }],
    ['no file where none was named', { path: join(dir, 'absent.yaml'), source: 'cwd' }],
  ])('%s: what a load reads as written', async (_what, location) => {
    const loaded = await inspectConfig(location, {});
    expect(await configAsWritten(location)).toEqual(loaded.raw ?? {});
  });

  it('a file the user named that is missing: the error a load gives', async () => {
    for (const source of ['flag', 'env'] as const) {
      const location = { path: join(dir, 'missing.yaml'), source };
      const loading = await inspectConfig(location, {}).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(loading).toMatchObject({ code: 'CONFIG_NOT_FOUND' });
      await expect(configAsWritten(location)).rejects.toEqual(loading);
    }
  });
});
