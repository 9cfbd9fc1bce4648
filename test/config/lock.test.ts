import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock, breakLockIfStale } from '../../src/config/files/lock.js';
import { tempDir } from '../helpers/cli.js';

/** A pid that surely belongs to no running process: one that has just exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('acquireLock', () => {
  it('creates the lock file with its owner and removes it on release', async () => {
    const path = join(tempDir(), 'c.yaml.lock');
    const lock = await acquireLock(path);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname(), token: lock.token });
    expect(lock.held()).toBe(true);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a lock whose owner process is dead', async () => {
    const path = join(tempDir(), 'c.yaml.lock');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'old', time: Date.now() }));
    const lock = await acquireLock(path, { timeoutMs: 2_000 });
    expect(lock.held()).toBe(true);
    lock.release();
  });

  it('takes over a lock older than staleMs (owner on another host)', async () => {
    const path = join(tempDir(), 'c.yaml.lock');
    writeFileSync(path, JSON.stringify({ pid: 1, host: 'elsewhere', token: 'old', time: 0 }));
    const old = new Date(Date.now() - 120_000);
    utimesSync(path, old, old);
    const lock = await acquireLock(path, { timeoutMs: 2_000, staleMs: 60_000 });
    expect(lock.held()).toBe(true);
    lock.release();
  });

  it('never takes over a lock of a live process on this machine, however old', async () => {
    const path = join(tempDir(), 'c.yaml.lock');
    const first = await acquireLock(path);
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(path, old, old);
    await expect(acquireLock(path, { timeoutMs: 300, staleMs: 60_000 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(first.held()).toBe(true);
    first.release();
  });

  it('waits for a live lock and gives up with TIMEOUT naming the owner', async () => {
    const path = join(tempDir(), 'c.yaml.lock');
    const first = await acquireLock(path);
    const started = Date.now();
    await expect(acquireLock(path, { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringContaining(`locked by process ${process.pid}`),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(first.held()).toBe(true);
    first.release();
  });

  it('hands the lock over as soon as it is released', async () => {
    const path = join(tempDir(), 'c.yaml.lock');
    const first = await acquireLock(path);
    setTimeout(() => first.release(), 100);
    const second = await acquireLock(path, { timeoutMs: 5_000 });
    expect(second.held()).toBe(true);
    second.release();
  });

  it('keeps waiting while the lock changes hands: the limit is per holder, not for the whole queue', async () => {
    const path = join(tempDir(), 'c.yaml.lock');
    // Four holders in a row, 200 ms each: 800 ms in all, more than the waiter's 300 ms limit,
    // yet no one holder keeps it waiting that long.
    let holder = await acquireLock(path);
    const waiter = acquireLock(path, { timeoutMs: 300 });
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 200));
      // Hand over directly (as a queued editor would take it) so the waiter never finds it free.
      holder.release();
      holder = await acquireLock(path, { timeoutMs: 50 });
    }
    await new Promise((r) => setTimeout(r, 200));
    holder.release();
    const lock = await waiter;
    expect(lock.held()).toBe(true);
    lock.release();
  });

  it('leaves nothing beside the lock: the owner is written whole before the lock appears', async () => {
    const folder = tempDir();
    const path = join(folder, 'c.yaml.lock');
    const lock = await acquireLock(path);
    expect(readdirSync(folder)).toEqual(['c.yaml.lock']);
    lock.release();
    expect(readdirSync(folder)).toEqual([]);
  });

  it('a break looks at the lock as it is when breaking: a live holder keeps it', async () => {
    // A waiter that saw a dead owner's lock, while a live process took the lock since, must not
    // remove the new one (the holder found its lock gone mid-edit: "Lost the lock").
    const path = join(tempDir(), 'c.yaml.lock');
    const live = await acquireLock(path);
    expect(breakLockIfStale(path, 60_000)).toBe(false);
    expect(live.held()).toBe(true);
    live.release();
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'old', time: Date.now() }));
    expect(breakLockIfStale(path, 60_000)).toBe(true);
    expect(existsSync(path)).toBe(false);
  });

  it('a breaker that died inside its guard does not stop the next break', async () => {
    const folder = tempDir();
    const path = join(folder, 'c.yaml.lock');
    const dead = { pid: deadPid(), host: hostname(), time: Date.now() };
    writeFileSync(path, JSON.stringify({ ...dead, token: 'old' }));
    writeFileSync(`${path}.break`, JSON.stringify({ ...dead, token: 'breaker' }));
    const lock = await acquireLock(path, { timeoutMs: 2_000 });
    expect(lock.held()).toBe(true);
    lock.release();
    expect(readdirSync(folder)).toEqual([]);
  });

  it("what a clearer killed mid-clear moved aside is removed by the next acquire, a live clearer's kept", async () => {
    const folder = tempDir();
    const path = join(folder, 'c.yaml.lock');
    const guard = { host: hostname(), token: 'breaker', time: Date.now() };
    const killed = join(folder, `.c.yaml.lock.break.${deadPid()}.stale-0123abcd.tmp`);
    const working = join(folder, `.c.yaml.lock.break.${process.pid}.stale-4567cdef.tmp`);
    writeFileSync(killed, JSON.stringify({ ...guard, pid: deadPid() }));
    writeFileSync(working, JSON.stringify({ ...guard, pid: process.pid }));
    const lock = await acquireLock(path);
    lock.release();
    expect(readdirSync(folder)).toEqual([basename(working)]);
  });

  it("a live breaker's guard is left in place", () => {
    const folder = tempDir();
    const path = join(folder, 'c.yaml.lock');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'old', time: Date.now() }));
    writeFileSync(`${path}.break`, JSON.stringify({ pid: process.pid, host: hostname(), token: 'breaker', time: Date.now() }));
    expect(breakLockIfStale(path, 60_000)).toBe(false);
    expect(existsSync(`${path}.break`)).toBe(true);
    expect(existsSync(path)).toBe(true);
  });
});
