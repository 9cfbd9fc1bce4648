import { describe, expect, it } from 'vitest';
import { compileQuery, type SearchQuery } from '../../src/retrieve/patterns/query.js';

const q = (query: string, more: Partial<SearchQuery> = {}): SearchQuery => ({ query, regex: false, ignoreCase: false, ...more });

/** What rg -o prints of one line, for the same query (checked with rg 13, but for the last row). */
describe('the parts of a line a query matches (rg -o)', () => {
  it.each([
    ['a literal, each occurrence', q('foo'), 'foo foofoo fo', ['foo', 'foo', 'foo']],
    ['a literal does not overlap itself', q('aa'), 'aaaaa', ['aa', 'aa']],
    ['a literal with regex characters', q('a.b('), 'a.b( axb(', ['a.b(']],
    ['ignoring case, as written in the line', q('foo', { ignoreCase: true }), 'Foo fOO x', ['Foo', 'fOO']],
    ['a word, not inside longer words', q('foo', { word: true }), 'food foo_x (foo) foo-bar', ['foo', 'foo']],
    ['several patterns, leftmost first', q('foo', { more: ['bar', 'foobar'] }), 'foobar barfoo', ['foo', 'bar', 'bar', 'foo']],
    ['a regex', q('f[a-z]+', { regex: true }), 'fa fbc 1f', ['fa', 'fbc']],
    ['a regex that matches empty text: not right after a match (Rust regex)', q('o*', { regex: true }), 'foo one', ['', 'oo', 'o', '', '']],
    ['empty matches only', q('x*', { regex: true }), 'ab', ['', '', '']],
    ['a line -v chose holds none', q('foo', { invert: true }), 'bar', []],
    // rg 13 reports an empty match at each of its 4 bytes; regex crates from 1.9 on (rg 14) never split a character.
    ['a character outside the BMP is not split', q('x*', { regex: true }), '😀', ['', '']],
  ] as const)('%s', (_label, query, line, expected) => {
    expect(compileQuery(query).parts(line)).toEqual(expected);
  });
});

describe('the parts kept of one line', () => {
  it.each([
    ['a literal', q('ab')],
    ['a regex', q('a.', { regex: true })],
    ['a regex that matches empty text', q('z*', { regex: true })],
  ] as const)('stop at the most asked for: %s', (_label, query) => {
    const line = 'ab'.repeat(50);
    expect(compileQuery(query).parts(line, 7)).toHaveLength(7);
    expect(compileQuery(query).parts(line).length).toBeGreaterThan(7);
  });
});
