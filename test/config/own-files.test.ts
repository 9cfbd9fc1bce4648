import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isOwnPath, ownFiles, ownName } from '../../src/config/files/own-files.js';
import { tempDir } from '../helpers/cli.js';

describe('ownName: the own files of a folder, and what is made beside them', () => {
  it.each<[string, boolean]>([
    ['mcpkit.yaml', true],
    ['mcpkit.yaml.lock', true],
    ['mcpkit.yaml.lock.break', true],
    ['.mcpkit.yaml.123.ab12cd34.tmp', true],
    ['.mcpkit.yaml.lock.123.ab12cd34.tmp', true],
    ['.mcpkit.yaml.lock.break.123.ab12cd34.tmp', true],
    ['mcpkit.yaml.lock.old', false],
    ['audit.jsonl', true],
    ['audit.jsonl.3', true],
    ['audit.jsonl.old', false],
    ['mcpkit.yaml.bak', false],
    ['mcpkit.yml', false],
    ['xmcpkit.yaml', false],
    ['.mcpkit.yaml.swp', false],
    ['notes.md', false],
  ])('%s: %s', (name, own) => {
    expect(ownName(name, ['mcpkit.yaml', 'audit.jsonl'])).toBe(own);
  });
});

describe('ownFiles and isOwnPath', () => {
  it('the config, its pins, the audit log, and the state, cache, config and daemon folders, as real paths', () => {
    const dir = tempDir();
    const real = join(dir, 'real');
    mkdirSync(real);
    writeFileSync(join(real, 'mcpkit.yaml'), '');
    symlinkSync(real, join(dir, 'link'));
    const own = ownFiles({
      configPath: join(dir, 'link', 'mcpkit.yaml'),
      auditLog: join(dir, 'link', 'logs', 'audit.jsonl'),
      env: { XDG_STATE_HOME: join(dir, 'state'), XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'cfg'), XDG_RUNTIME_DIR: join(dir, 'run') },
      home: join(dir, 'home'),
    });
    for (const path of [
      join(real, 'mcpkit.yaml'),
      join(real, 'mcpkit.lock.yaml'),
      join(real, 'mcpkit.lock.yaml.lock'),
      join(real, 'logs', 'audit.jsonl.2'),
      join(dir, 'state', 'mcpkit'),
      join(dir, 'state', 'mcpkit', 'oauth', 'x.json'),
      join(dir, 'cache', 'mcpkit', 'tools', 'a.json'),
      join(dir, 'cfg', 'mcpkit', 'config.yaml'),
      join(dir, 'run', 'mcpkit', 'abc.sock'),
    ])
      expect(isOwnPath(own, path), path).toBe(true);
    for (const path of [
      join(real, 'notes.md'),
      join(dir, 'state'),
      join(dir, 'state', 'mcpkit-other'),
      join(dir, 'cache', 'other'),
      join(dir, 'link', 'mcpkit.yaml'),
    ])
      expect(isOwnPath(own, path), path).toBe(false);
  });

  it('without XDG variables: the folders under the home folder', () => {
    const own = ownFiles({ configPath: '/nowhere/mcpkit.yaml', env: {}, home: '/home/someone' });
    expect(isOwnPath(own, '/home/someone/.config/mcpkit/config.yaml')).toBe(true);
    expect(isOwnPath(own, '/home/someone/.local/state/mcpkit/audit.jsonl')).toBe(true);
    expect(isOwnPath(own, '/home/someone/.cache/mcpkit/bundles/x')).toBe(true);
    expect(isOwnPath(own, '/home/someone/.config/other/x')).toBe(false);
  });
});
