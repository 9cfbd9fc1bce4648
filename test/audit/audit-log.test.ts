import { existsSync, ftruncateSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog, type AuditEntry, type AuditFs } from '../../src/audit/audit-log.js';
import { Auditor } from '../../src/audit/auditor.js';
import { addSecrets } from '../../src/core/redact.js';
import { tempDir } from '../helpers/cli.js';
import { waitFor } from '../helpers/upstreams.js';

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEntry);

describe('AuditLog', () => {
  it('appends one JSON line per entry to a 0600 file, without waiting on the disk', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const log = new AuditLog(path);
    const auditor = new Auditor(log, { arguments: false });
    for (let i = 0; i < 50; i++)
      auditor.record({ method: 'tools/call', name: `t${i}`, started: performance.now(), args: { secret: 'never-written' }, result: { content: [] } });
    await log.flushed();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const written = lines(path);
    expect(written).toHaveLength(50);
    expect(written[49]!.name).toBe('t49');
    expect(readFileSync(path, 'utf8')).not.toContain('never-written');
    expect(written[0]).not.toHaveProperty('arguments');
    await log.close();
  });

  it('rotates by size, keeping N files, and never splits a line', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const log = new AuditLog(path, { maxBytes: 2_000, keep: 2 });
    const auditor = new Auditor(log, { arguments: false });
    for (let i = 0; i < 60; i++) {
      auditor.record({ method: 'tools/call', name: `tool-${i}`, started: performance.now(), result: { content: [] } });
      await log.flushed(); // one line per batch, so each rotation is seen
    }
    await log.close();
    expect(existsSync(`${path}.1`)).toBe(true);
    expect(existsSync(`${path}.2`)).toBe(true);
    expect(existsSync(`${path}.3`)).toBe(false);
    for (const file of [path, `${path}.1`, `${path}.2`]) {
      expect(statSync(file).size).toBeLessThanOrEqual(2_000);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(lines(file).length).toBeGreaterThan(0); // every line parses
    }
    // The newest calls are in the live file, the ones before in .1.
    expect(lines(path).at(-1)!.name).toBe('tool-59');
    const kept = [...lines(`${path}.2`), ...lines(`${path}.1`), ...lines(path)].map((e) => Number(e.name.slice(5)));
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
  });

  it('gathers the lines of many calls into a few writes', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const log = new AuditLog(path, { batchMs: 200 });
    const auditor = new Auditor(log, { arguments: false });
    // 40 calls ending on 40 turns of the event loop, well within one batch window.
    for (let i = 0; i < 40; i++) {
      auditor.record({ method: 'tools/call', name: `t${i}`, started: performance.now(), result: { content: [] } });
      await new Promise((r) => setImmediate(r));
    }
    await log.flushed();
    expect(lines(path).map((e) => e.name)).toEqual(Array.from({ length: 40 }, (_, i) => `t${i}`));
    expect(log.batchesWritten).toBeLessThanOrEqual(2);
    await log.close();
  });

  it('splits one batch across rotations so that no file outgrows the limit', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const log = new AuditLog(path, { maxBytes: 2_000, keep: 20 });
    const auditor = new Auditor(log, { arguments: false });
    for (let i = 0; i < 60; i++) auditor.record({ method: 'tools/call', name: `tool-${i}`, started: performance.now(), result: { content: [] } });
    await log.close();
    const files = [path, ...Array.from({ length: 20 }, (_, i) => `${path}.${i + 1}`).filter((f) => existsSync(f))].reverse();
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expect(statSync(file).size).toBeLessThanOrEqual(2_000);
    expect(files.flatMap((f) => lines(f).map((e) => e.name))).toEqual(Array.from({ length: 60 }, (_, i) => `tool-${i}`));
  });

  it('drops and counts lines beyond what may wait, instead of holding up calls', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const log = new AuditLog(path, { maxPending: 5 });
    const auditor = new Auditor(log, { arguments: false });
    for (let i = 0; i < 20; i++) auditor.record({ method: 'tools/call', name: 't', started: performance.now() });
    await log.close();
    expect(lines(path)).toHaveLength(5);
    expect(log.droppedLines).toBe(15);
  });

  it('records arguments only when asked, with known secrets masked', async () => {
    addSecrets(['s3cr3t-token-value']);
    const path = join(tempDir(), 'audit.jsonl');
    const log = new AuditLog(path);
    new Auditor(log, { arguments: true }).record({
      method: 'tools/call',
      name: 't',
      started: performance.now(),
      args: { query: 'hello', token: 's3cr3t-token-value' },
      result: {},
    });
    await log.close();
    const [written] = lines(path);
    expect(written!.arguments).toMatchObject({ query: 'hello' });
    expect(readFileSync(path, 'utf8')).not.toContain('s3cr3t-token-value');
  });

  it('writes a batch far larger than its first buffer whole and in order, multibyte text included', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const log = new AuditLog(path, { batchMs: 10_000 }); // one batch, written on close
    const auditor = new Auditor(log, { arguments: true });
    const big = 'ü工😀'.repeat(40_000); // 360 KB of UTF-8 in one line
    for (let i = 0; i < 3000; i++) auditor.record({ method: 'tools/call', name: `t${i}-é`, started: performance.now() });
    auditor.record({ method: 'tools/call', name: 'big', started: performance.now(), args: { text: big } });
    auditor.record({ method: 'tools/call', name: 'after', started: performance.now() });
    await log.close();
    const written = lines(path);
    expect(written.map((e) => e.name)).toEqual([...Array.from({ length: 3000 }, (_, i) => `t${i}-é`), 'big', 'after']);
    expect((written[3000]!.arguments as { text: string }).text).toBe(big);
    expect(log.batchesWritten).toBe(1);
  });

  it('on a full disk (/dev/full): says so once and in status, keeps the lines waiting, and on close drops and counts them', async () => {
    const failures: string[] = [];
    const log = new AuditLog('/dev/full', { failed: (reason) => failures.push(reason) });
    const auditor = new Auditor(log, { arguments: false });
    auditor.record({ method: 'tools/call', name: 'first', started: performance.now() });
    for (let i = 0; i < 5; i++) auditor.record({ method: 'tools/call', name: `waiting-${i}`, started: performance.now() });
    await new Promise((r) => setTimeout(r, 200)); // the batch's write, and a retry, fail
    expect(log.status()).toMatchObject({ ok: false, path: '/dev/full', dropped_lines: 0, reason: expect.stringMatching(/ENOSPC/) });
    auditor.record({ method: 'tools/call', name: 'later', started: performance.now() });
    await log.close();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/cannot write the audit log \/dev\/full: .*ENOSPC/);
    expect(log.droppedLines).toBe(7);
  });

  /**
   * A disk that fills up: the first `failures` writes put part of their bytes on it, then fail
   * with ENOSPC; later ones are short (a few bytes each). Answered asynchronously, as fs is.
   */
  function fillingDisk(failures: number) {
    let left = failures;
    const fs: AuditFs = {
      write: (fd, buffer, offset, length, done) => {
        if (left > 0) {
          left--;
          writeSync(fd, buffer, offset, Math.max(1, Math.floor(length / 2)));
          setImmediate(() => done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), 0));
          return;
        }
        const written = writeSync(fd, buffer, offset, Math.min(length, 7));
        setImmediate(() => done(null, written));
      },
      ftruncate: (fd, length, done) => {
        ftruncateSync(fd, length);
        setImmediate(() => done(null));
      },
    };
    return fs;
  }

  it('after failed writes (part of a batch on disk each time) it retries, resumes once there is room, and leaves no torn line', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const said: string[] = [];
    const log = new AuditLog(path, { fs: fillingDisk(3), failed: (r) => said.push(`failed: ${r}`), recovered: (d) => said.push(`recovered, ${d} dropped`) });
    const auditor = new Auditor(log, { arguments: false });
    for (let i = 0; i < 20; i++) auditor.record({ method: 'tools/call', name: `t${i}`, started: performance.now() });
    await log.flushed(); // settles once the lines are written: after three failed tries
    // Every line arrives, once, in order, and the file holds nothing but whole lines.
    expect(await waitFor(() => lines(path).length === 20, 5000)).toBe(true);
    expect(lines(path).map((e) => e.name)).toEqual(Array.from({ length: 20 }, (_, i) => `t${i}`));
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
    expect(log.status()).toEqual({ ok: true, path, dropped_lines: 0 });
    expect(said).toEqual([expect.stringMatching(/^failed: cannot write the audit log .*ENOSPC/), 'recovered, 0 dropped']);
    auditor.record({ method: 'tools/call', name: 'after', started: performance.now() });
    await log.close();
    expect(lines(path).at(-1)!.name).toBe('after');
  });

  it('while failing, keeps at most maxPending lines and counts the rest as dropped', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const log = new AuditLog(path, { fs: fillingDisk(2), maxPending: 5 });
    const auditor = new Auditor(log, { arguments: false });
    for (let i = 0; i < 3; i++) auditor.record({ method: 'tools/call', name: `a${i}`, started: performance.now() });
    await new Promise((r) => setTimeout(r, 50)); // the first batch fails
    for (let i = 0; i < 6; i++) auditor.record({ method: 'tools/call', name: `b${i}`, started: performance.now() });
    expect(await waitFor(() => log.status().ok, 5000)).toBe(true);
    await log.close();
    expect(lines(path).map((e) => e.name)).toEqual(['a0', 'a1', 'a2', 'b0', 'b1']);
    expect(log.droppedLines).toBe(4);
  });
});
