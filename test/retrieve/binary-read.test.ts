import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanFile } from '../../src/retrieve/file-search.js';
import { releaseRead, type ReadHolder } from '../../src/retrieve/read-into.js';
import { chunkOptions, searchChunk } from '../../src/retrieve/search-chunks.js';
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

  it("reads a binary file no further after a large text file grew the thread's buffer", () => {
    const text = join(dir, 'large.txt');
    writeFileSync(text, Buffer.alloc(size, 'needle\n'));
    const binary = join(dir, 'late-nul.bin');
    const bytes = Buffer.alloc(size, 'needle\n');
    bytes[200 * 1024] = 0;
    writeFileSync(binary, bytes);
    const holder: ReadHolder = { buffer: Buffer.allocUnsafe(64 * 1024) };
    expect(scanFile(text, holder, () => true)).toBe('searched');
    expect(holder.buffer.length).toBeGreaterThan(size);
    const before = readBytes();
    expect(scanFile(binary, holder, () => true)).toBe('binary');
    expect(readBytes() - before).toBeLessThan(2 * 1024 * 1024);
    releaseRead(holder);
  });

  it("a thread's chunks share one read buffer: the next chunk reads into the one the last grew", () => {
    const path = join(dir, 'chunked.txt');
    writeFileSync(path, Buffer.alloc(size, 'needle\n'));
    const files = [path, path].map((abs) => ({ abs, repo: 'r', path: 'r/chunked.txt' }));
    const options = chunkOptions({
      query: { query: 'zzz', regex: false, ignoreCase: false },
      shape: { before: 0, after: 0, maxCount: Infinity, onlyMatching: false },
      report: 'lines',
    });
    searchChunk(files, 0, 1, options);
    const grown = options.holder.buffer;
    expect(grown.length).toBeGreaterThan(size);
    expect(searchChunk(files, 1, 1, options).files_searched).toBe(1);
    expect(options.holder.buffer).toBe(grown);
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
