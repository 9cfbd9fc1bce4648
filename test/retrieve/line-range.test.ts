import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLineRange } from '../../src/retrieve/patterns/line-range.js';
import { tempDir } from '../helpers/cli.js';

function rangeOf(text: string | Buffer, start: number, end: number, maxBytes = 1 << 20, blockSize = 7) {
  const file = join(tempDir(), 'f.txt');
  writeFileSync(file, text);
  const fd = openSync(file, 'r');
  try {
    return readLineRange(fd, start, end, maxBytes, blockSize);
  } finally {
    closeSync(fd);
  }
}

/** What splitting the whole text gives, for comparison. */
function expected(text: string, start: number, end: number) {
  const all = text.split(/\r?\n/);
  if (all.at(-1) === '') all.pop();
  return { lines: all.slice(start - 1, end), totalLines: all.length };
}

describe('readLineRange', () => {
  const texts = ['', 'one', 'one\n', 'one\ntwo', 'one\r\ntwo\r\n', 'a\n\nb\n\n', 'héllo wörld\nline two is longer than a block\nx', '\n\n\n'];
  for (const text of texts) {
    for (const [start, end] of [
      [1, 1],
      [1, 3],
      [2, 2],
      [2, 100],
    ] as const) {
      it(`${JSON.stringify(text)} lines ${start}-${end}, in blocks of 7 bytes`, () => {
        const got = rangeOf(text, start, end);
        expect({ lines: got.lines, totalLines: got.totalLines }).toEqual(expected(text, start, end));
        expect(got.truncated).toBe(false);
      });
    }
  }

  it('keeps whole lines within maxBytes and still counts to the end', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const got = rangeOf(text, 1, Infinity, 30);
    expect(got.lines).toEqual(['line 1', 'line 2', 'line 3', 'line 4']);
    expect(got.truncated).toBe(true);
    expect(got.totalLines).toBe(100);
  });

  it('reaches a line far past maxBytes', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join('\n');
    const got = rangeOf(text, 4999, 6000, 100, 64);
    expect(got).toEqual({ lines: ['line 4999', 'line 5000'], totalLines: 5000, truncated: false, binary: false });
  });

  it('says binary for a NUL in the first 8 KiB', () => {
    expect(rangeOf(Buffer.from([0x61, 0x00, 0x0a]), 1, 1).binary).toBe(true);
  });
});
