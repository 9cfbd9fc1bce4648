import { describe, expect, it } from 'vitest';
import { buildTrigrams, mayContain, requiredTrigrams } from '../../src/retrieve/patterns/trigrams.js';

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

  it.each([
    // [file text, filter bits]: about five bits per distinct key (trigrams and 6-grams), a power of two, at least 512
    ['', 512],
    ['abc', 512],
    ['x'.repeat(100_000), 512], // a hundred thousand bytes, two keys
  ])('sizes the filter of %j to %i bits', (text, bits) => {
    expect(filterOf(text).length * 32).toBe(bits);
  });

  it.each([200, 2000, 20_000])('sizes the filter of %i varied words to five to ten bits per distinct key', (words) => {
    const text = Array.from({ length: words }, (_, i) => `w${i * 7919}`).join(' ');
    const keys = requiredTrigrams(Buffer.from(text), false)!.length;
    const bits = filterOf(text).length * 32;
    expect(bits / keys).toBeGreaterThanOrEqual(4.5); // a few keys share a bit of the first, larger filter
    expect(bits / keys).toBeLessThan(10);
  });

  it('rules out a file that holds every trigram of a word but not the word (6-grams)', () => {
    // cre rea eat ate, tes, ese ser erv rve ver: every trigram of "createserver" is here.
    const parts = 'create tesla; eserve server';
    for (let at = 0; at + 3 <= 'createserver'.length; at++) expect(parts).toContain('createserver'.slice(at, at + 3));
    expect(may(parts, 'createServer')).toBe(false);
    expect(may(parts, 'createServer', true)).toBe(false);
    expect(may('createServer()', 'createServer')).toBe(true);
    expect(may('CREATESERVER()', 'createServer', true)).toBe(true);
  });

  it('rules out most unrelated files of real text', () => {
    const words = ['const', 'function', 'return', 'import', 'export', 'value', 'options', 'result', 'error', 'config'];
    const body = Array.from({ length: 400 }, (_, i) => `${words[i % 10]} ${words[(i * 7) % 10]}_${i % 13};`).join('\n');
    expect(may(body, 'createServer(')).toBe(false);
    expect(may(body, 'options')).toBe(true);
  });
});
