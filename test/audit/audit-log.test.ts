import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog, type AuditEntry } from '../../src/audit/audit-log.js';
import { Auditor } from '../../src/audit/auditor.js';
import { addSecrets } from '../../src/core/redact.js';
import { tempDir } from '../helpers/cli.js';

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

  it('after a failed write, tells it once, drops and counts what waits, and still settles', async () => {
    const failures: string[] = [];
    const log = new AuditLog('/dev/full', { failed: (reason) => failures.push(reason) });
    const auditor = new Auditor(log, { arguments: false });
    auditor.record({ method: 'tools/call', name: 'first', started: performance.now() });
    const first = log.flushed(); // its write goes now, and fails (no space left on the device)
    for (let i = 0; i < 5; i++) auditor.record({ method: 'tools/call', name: `waiting-${i}`, started: performance.now() });
    await first;
    await log.flushed();
    auditor.record({ method: 'tools/call', name: 'later', started: performance.now() });
    await log.close();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/cannot write the audit log \/dev\/full: .*ENOSPC/);
    expect(log.droppedLines).toBe(6); // the five that waited, and the one after
  });
});
