import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanFile } from '../../src/retrieve/file-search.js';
import { releaseRead, type ReadHolder } from '../../src/retrieve/read-into.js';
import { tempDir } from '../helpers/cli.js';

/**
 * A file is binary at its first NUL byte (as ripgrep decides), and the rest of it is not read:
 * most of /usr/share's bytes are in such files (341 of 809 MB). The kernel's count of bytes this
 * process read (/proc/self/io rchar; this test file has its process to itself) says how much was read.
 */
const readBytes = () => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

describe('scanFile stops reading a binary file at its first NUL', () => {
  const dir = tempDir('mcpkit-binary-read-');
  const size = 12 * 1024 * 1024; // under a block (16 MiB): read whole before, were it text

  it.each([
    ['a NUL at the start', 10],
    ['a NUL past the first read', 200 * 1024],
  ])('%s', (_label, at) => {
    const path = join(dir, `nul-at-${at}.bin`);
    const bytes = Buffer.alloc(size, 'needle\n');
    bytes[at] = 0;
    writeFileSync(path, bytes);
    const holder: ReadHolder = { buffer: Buffer.allocUnsafe(64 * 1024) };
    let visits = 0;
    const before = readBytes();
    const status = scanFile(path, holder, () => (visits++, true));
    const read = readBytes() - before;
    releaseRead(holder);
    expect(status).toBe('binary');
    expect(visits).toBe(0);
    expect(read).toBeGreaterThan(at);
    expect(read).toBeLessThan(2 * 1024 * 1024);
  });

  it('still reads a text file whole, and a NUL in its last byte makes it binary', () => {
    const path = join(dir, 'text.txt');
    const bytes = Buffer.alloc(size, 'needle\n');
    writeFileSync(path, bytes);
    const holder: ReadHolder = { buffer: Buffer.allocUnsafe(64 * 1024) };
    const before = readBytes();
    expect(scanFile(path, holder, () => true)).toBe('searched');
    expect(readBytes() - before).toBeGreaterThanOrEqual(size);
    bytes[size - 1] = 0;
    writeFileSync(path, bytes);
    expect(scanFile(path, holder, () => true)).toBe('binary');
    releaseRead(holder);
  });
});
