import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/config/files/lock.js';
import { pinFilePath } from '../../src/config/files/pin-file.js';
import { readWithPinText } from '../../src/config/files/read-with-pins.js';
import { tempDir } from '../helpers/cli.js';

/**
 * A read of the config looks at the lock an edit of it takes (config/edit.ts, both through
 * config/files/link-target.ts): held, the lock file's text is read as "" (every drop counted is a
 * drop since). A config that is a dangling link is edited at its target, so locked there too.
 */
describe('readWithPinText', () => {
  it.each([
    ['a plain file', false],
    ['a dangling link, whose target an edit creates', true],
  ])('%s: the edit lock it looks at is the one an edit holds', async (_what, dangling) => {
    const dir = tempDir();
    const config = join(dir, 'mcpkit.yaml');
    const target = dangling ? join(dir, 'real.yaml') : config;
    if (dangling) symlinkSync('real.yaml', config);
    else writeFileSync(config, 'mcp_servers: {}\n');
    writeFileSync(pinFilePath(config), 'version: 1\nservers: {}\napprovals_dropped:\n  jobs: 1\n');
    expect((await readWithPinText(config, () => Promise.resolve(1))).pinText).toContain('jobs: 1');
    const edit = await acquireLock(`${target}.lock`);
    try {
      expect(await readWithPinText(config, () => Promise.resolve(2))).toEqual({ pinText: '', value: 2 });
    } finally {
      edit.release();
    }
  });
});
