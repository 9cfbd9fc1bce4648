import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireLock, breakLockIfStale } from '../../src/config/files/lock.js';
import { tempDir } from '../helpers/cli.js';

// The lock with node:fs seams: link() refused as some filesystems refuse it, and a step injected mid-break.

/** The error link() gives here: refused as a filesystem without links refuses it, or as Android's sandbox does (EACCES). */
let refusal: string | undefined;
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  const linkSync: typeof fs.linkSync = (from, to) => {
    if (refusal === undefined) return fs.linkSync(from, to);
    throw Object.assign(new Error(`${refusal}: link refused`), { code: refusal });
  };
  // A seam in the middle of a break: called when the lock's owner is read.
  const readFileSync = ((file: string, ...rest: unknown[]) => {
    if (typeof file === 'string' && file.endsWith('.lock')) onLockRead?.();
    return (fs.readFileSync as (...a: unknown[]) => unknown)(file, ...rest);
  }) as typeof fs.readFileSync;
  return { ...fs, linkSync, readFileSync, default: { ...fs, linkSync, readFileSync } };
});
let onLockRead: (() => void) | undefined;
afterEach(() => {
  refusal = undefined;
  onLockRead = undefined;
});

const deadPid = () => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

describe('the config lock where link() is refused', () => {
  it.each(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EACCES'])(
    '(%s): the lock is created exclusively, with its owner, and nothing is left beside it',
    async (code) => {
      refusal = code;
      const folder = tempDir();
      const path = join(folder, 'c.yaml.lock');
      const lock = await acquireLock(path);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname(), token: lock.token });
      expect(readdirSync(folder)).toEqual(['c.yaml.lock']);
      // A second editor waits for it, and gives up naming its owner.
      await expect(acquireLock(path, { timeoutMs: 200 })).rejects.toMatchObject({ code: 'TIMEOUT' });
      lock.release();
      expect(readdirSync(folder)).toEqual([]);
    },
  );

  it("a dead owner's lock is broken (its guard created exclusively too) and taken", async () => {
    refusal = 'EPERM';
    const folder = tempDir();
    const path = join(folder, 'c.yaml.lock');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'old', time: Date.now() }));
    const lock = await acquireLock(path, { timeoutMs: 2_000 });
    expect(lock.held()).toBe(true);
    lock.release();
    expect(readdirSync(folder)).toEqual([]);
  });

  it('another error of link() is not taken for a refusal: it fails the lock, saying so', async () => {
    refusal = 'EIO';
    const folder = tempDir();
    await expect(acquireLock(join(folder, 'c.yaml.lock'))).rejects.toMatchObject({ code: 'FILE_ACCESS' });
    expect(readdirSync(folder)).toEqual([]);
  });

  it("a breaker whose guard was moved aside meanwhile leaves the next breaker's guard in place", () => {
    // A clearer that judged an earlier, dead guard moved ours aside, and another breaker took the
    // guard before it could be put back: removing that one at our end would let a third breaker in.
    const folder = tempDir();
    const path = join(folder, 'c.yaml.lock');
    const guard = `${path}.break`;
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), token: 'live', time: Date.now() }));
    const next = JSON.stringify({ pid: process.pid, host: hostname(), token: 'next-breaker', time: Date.now() });
    onLockRead = () => {
      onLockRead = undefined;
      renameSync(guard, join(folder, 'aside'));
      writeFileSync(guard, next);
    };
    expect(breakLockIfStale(path, 60_000)).toBe(false);
    expect(readFileSync(guard, 'utf8')).toBe(next);
  });
});
