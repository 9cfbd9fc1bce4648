import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { heldEditLockWarning } from '../../src/app/held-edit-lock.js';
import { LiveConfig } from '../../src/app/live-config.js';
import { acquireLock } from '../../src/config/files/lock.js';
import { pinFilePath } from '../../src/config/files/pin-file.js';
import { readWithPinText } from '../../src/config/files/read-with-pins.js';
import { createLogger } from '../../src/core/logger.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

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
      expect(await readWithPinText(config, () => Promise.resolve(2))).toEqual({ pinText: '', value: 2, heldLock: `${target}.lock` });
    } finally {
      edit.release();
    }
    expect(await readWithPinText(config, () => Promise.resolve(3))).not.toHaveProperty('heldLock');
  });

  it('an edit that runs whole after the lock was read and the edit lock looked at: the config it wrote comes with the drop it counted, never with the count before', async () => {
    const { config } = lockedPlace();
    const lockText = (drops: number) => `version: 1\nservers: {}\napprovals_dropped:\n  jobs: ${drops}\n`;
    let edits = 0;
    // The read of the config is where the edit lands (live-config's read pauses while a file settles): the drop first, then the entry, as config/edit.ts writes them.
    const read = await readWithPinText(config, async () => {
      if (edits++ === 0) {
        writeFileSync(pinFilePath(config), lockText(2));
        writeFileSync(config, 'mcp_servers:\n  jobs:\n    url: https://new.example/mcp\n');
      }
      return readFileSync(config, 'utf8');
    });
    expect(read).toEqual({ pinText: lockText(2), value: 'mcp_servers:\n  jobs:\n    url: https://new.example/mcp\n' });
    expect(edits).toBe(2);
  });

  it('first-use pins written during the read change the text, not the drops: the text read first is kept, and the config is read once', async () => {
    const { config } = lockedPlace();
    const before = readFileSync(pinFilePath(config), 'utf8');
    let reads = 0;
    const read = await readWithPinText(config, async () => {
      writeFileSync(pinFilePath(config), `${before}tools:\n  other:\n    echo:\n      sha256: ${'a'.repeat(64)}\n`);
      return ++reads;
    });
    expect(read).toEqual({ pinText: before, value: 1 });
  });

  it('a lock file that changes under every read is read as "" (every drop it counts taken as made since), after three reads', async () => {
    const { config } = lockedPlace();
    let reads = 0;
    const read = await readWithPinText(config, async () => {
      writeFileSync(pinFilePath(config), `version: 1\nservers: {}\napprovals_dropped:\n  jobs: ${++reads + 1}\n`);
      return reads;
    });
    expect(read).toEqual({ pinText: '', value: 3 });
  });
});

/** A config with one server and a lock that counts a drop of its approvals, in a folder of its own. */
function lockedPlace() {
  const dir = tempDir();
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(config, 'mcp_servers:\n  jobs:\n    url: https://old.example/mcp\n');
  writeFileSync(pinFilePath(config), 'version: 1\nservers: {}\napprovals_dropped:\n  jobs: 1\n');
  return { dir, config, lock: `${config}.lock` };
}

/** The config as a process follows it (app/live-config.ts), with what its log says at warn and up. */
function liveConfig(config: string) {
  const lines: string[] = [];
  const live = new LiveConfig({ location: { path: config, source: 'flag' }, env: {}, logger: createLogger('warn', (line) => void lines.push(line)) });
  return { live, lines };
}

describe('a config read while its edit lock is held', () => {
  it('is warned of once per process and lock: a load and a reload under a real held lock say it once, naming the lock', async () => {
    const { config, lock } = lockedPlace();
    const edit = await acquireLock(lock);
    try {
      const { live, lines } = liveConfig(config);
      await live.follow(
        async () => {},
        async () => {},
      );
      expect(live.pinTextAtLoad).toBe('');
      writeFileSync(config, 'mcp_servers:\n  jobs:\n    url: https://new.example/mcp\n');
      expect((await live.reload('test')).outcome).toBe('applied');
      expect(live.pinTextAtLoad).toBe('');
      const warned = lines.filter((l) => l.includes(lock));
      expect(warned).toEqual([`mcpkit warn: ${heldEditLockWarning(lock)}\n`]);
      expect(warned[0]).toContain('not pinned on first use');
      expect(warned[0]).toContain(`delete ${lock}`);
      // Another reader of the same config in this process: said already.
      const again = liveConfig(config);
      await again.live.get();
      expect(again.lines.filter((l) => l.includes(lock))).toEqual([]);
    } finally {
      edit.release();
    }
  });

  it('says nothing when the lock is free, and each held lock of its own once', async () => {
    const free = lockedPlace();
    const quiet = liveConfig(free.config);
    await quiet.live.get();
    expect(quiet.lines).toEqual([]);
    const other = lockedPlace();
    const edit = await acquireLock(other.lock);
    try {
      const { live, lines } = liveConfig(other.config);
      await live.get();
      expect(lines.filter((l) => l.includes(other.lock))).toHaveLength(1);
    } finally {
      edit.release();
    }
  });

  it('a command run while the lock is held says it on stderr, once, and its output is its own', async () => {
    const { dir, config, lock } = lockedPlace();
    // Held by this process, alive: the command's process takes it as held (config/files/lock.ts). A process of its own: its stderr is the one a person reads.
    const edit = await acquireLock(lock);
    try {
      const ran = await runCli(['tools', '--config', config], { env: cleanEnv({ MCPKIT_NO_DAEMON: '1' }), cwd: dir });
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr.split(lock).length - 1).toBe(2); // one line, which names the lock twice
      expect(ran.stderr).toContain('not pinned on first use');
      expect(ran.stdout).not.toContain(lock);
      expect(ran.stdout).toContain('server_list');
    } finally {
      edit.release();
    }
  });
});
