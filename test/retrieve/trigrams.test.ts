import { describe, expect, it } from 'vitest';
import { buildTrigrams, mayContain, requiredTrigrams } from '../../src/retrieve/trigrams.js';

const filterOf = (text: string) => {
  const buf = Buffer.from(text);
  return buildTrigrams(buf, buf.length);
};
const may = (text: string, needle: string, ci = false) => {
  const trigrams = requiredTrigrams(Buffer.from(needle), ci);
  return trigrams === undefined ? 'no filter' : mayContain(filterOf(text), trigrams);
};

const TEXT = 'export function createServer(options) {\n  return new Server(options);\n}\n';

describe('trigram filter', () => {
  it('never rules out a substring of the file (no false negatives)', () => {
    for (let start = 0; start < TEXT.length - 3; start++) {
      for (let end = start + 3; end <= Math.min(TEXT.length, start + 20); end++) {
        const needle = TEXT.slice(start, end);
        expect(may(TEXT, needle), JSON.stringify(needle)).toBe(true);
        expect(may(TEXT, needle.toUpperCase(), true), JSON.stringify(needle)).toBe(true);
      }
    }
  });

  it.each([
    // [file text, needle, case-insensitive, expected]
    ['createServer(', 'createServer(', false, true],
    ['createServer(', 'CREATESERVER(', true, true],
    ['createServer(', 'listenOnPort', false, false],
    ['createServer(', 'zzz', false, false],
    ['ab', 'abc', false, false],
    ['', 'abc', false, false],
    // JavaScript's case-insensitive matching equates these with ASCII letters (regex iu, toLowerCase).
    ['\u212Aelvin degrees', 'kelvin', true, true],
    ['\u017Ftrict mode', 'strict', true, true],
    ['\u0130stanbul', 'istanbul', true, true],
    ['ça va', 'ÇA VA', true, true], // non-ASCII trigrams are not required when case does not matter
    ['ça va', 'a v', false, true],
    ['naïve approach', 'naïve', false, true],
    ['naive approach', 'naïve', false, false],
  ])('%j contains %j (ignore case: %s): %s', (text, needle, ci, expected) => {
    expect(may(text, needle, ci)).toBe(expected);
  });

  it.each([
    ['ab', false],
    ['é', true], // only non-ASCII bytes: nothing to require when case does not matter
  ])('has no filter for %j (ignore case: %s)', (needle, ci) => {
    expect(requiredTrigrams(Buffer.from(needle), ci)).toBeUndefined();
  });

  it('sizes the filter to its file: one bit per byte, at least 64', () => {
    expect(filterOf('abc').length * 32).toBe(64);
    expect(filterOf('x'.repeat(1000)).length * 32).toBe(1024);
    expect(filterOf('x'.repeat(1025)).length * 32).toBe(2048);
  });

  it('rules out most unrelated files of real text', () => {
    const words = ['const', 'function', 'return', 'import', 'export', 'value', 'options', 'result', 'error', 'config'];
    const body = Array.from({ length: 400 }, (_, i) => `${words[i % 10]} ${words[(i * 7) % 10]}_${i % 13};`).join('\n');
    expect(may(body, 'createServer(')).toBe(false);
    expect(may(body, 'options')).toBe(true);
  });
});
