import { describe, expect, it } from 'vitest';
import { regexGramGroups } from '../../src/retrieve/patterns/regex-grams.js';
import { buildTrigrams, mayContainOneOfEach, trigramKey } from '../../src/retrieve/patterns/trigrams.js';

const key = (s: string) => trigramKey(s.charCodeAt(0), s.charCodeAt(1), s.charCodeAt(2));
const filterOf = (text: string) => {
  const bytes = Buffer.from(text);
  return buildTrigrams(bytes, bytes.length);
};

describe('what a regular expression without a literal requires of a file', () => {
  const D = String.fromCharCode(1); // every digit of a window, in the filter's shape keys
  it.each<[string, string[][]]>([
    // DDD, DD-, D-D, -DD, DDt: each once
    ['[0-9]{4}-[0-9]{2}-[0-9]{2}T', [[`${D}${D}${D}`], [`${D}${D}-`], [`${D}-${D}`], [`-${D}${D}`], [`${D}${D}t`]]],
    ['\\d\\d:\\d\\d', [[`${D}${D}:`], [`${D}:${D}`], [`:${D}${D}`]]],
    ['v[0-9]\\.[0-9]', [[`v${D}.`], [`${D}.${D}`]]],
    ['[ab]x[0-9]', [[`ax${D}`, `bx${D}`]]],
  ])('%s requires %j', (source, groups) => {
    const want = groups.map((g) => g.map(key).sort((a, b) => a - b));
    expect(regexGramGroups(source)?.sort((a, b) => a[0]! - b[0]!)).toEqual(want.sort((a, b) => a[0]! - b[0]!));
  });

  it.each([
    ['a|b', 'an alternation at the top'],
    ['\\w+\\s\\w+', 'only large classes'],
    ['[^0-9]{3}', 'a negated class'],
    ['(ab|cd)ef', 'a group then two characters'],
    ['a.b.c', 'any character between'],
    ['[0-9]?[0-9]?[0-9]?', 'optional parts'],
    ['[a-z]{3}', 'a class too large for three in a row (26^3)'],
    ['[a-f][a-f]x', 'a group of 36 keys, which a filter lets through by chance'],
  ])('%s requires nothing the filter can use (%s)', (source) => {
    expect(regexGramGroups(source)).toBeUndefined();
  });

  it('letters are folded as the filter folds them: [Tt] is one key', () => {
    expect(regexGramGroups('[Tt]\\d:')).toEqual([[key(`t${D}:`)]]);
  });

  // No false negatives: a file holding a match always passes the filter.
  it.each<[string, string[]]>([
    ['[0-9]{4}-[0-9]{2}-[0-9]{2}T', ['released 2024-01-31T10:00', 'x1999-12-01Ty']],
    ['\\d\\d:\\d\\d', ['at 09:45 sharp']],
    ['v[0-9]\\.[0-9]+', ['version v2.10 and v3.1']],
    ['ab+c', ['abbbbc', 'abc']],
    ['x{2,4}yz', ['xxxxyz', 'xxyz']],
    ['^[A-Z][a-z]-[0-9]', ['Ab-1 rest']],
    ['[\\-+]\\d\\d', ['-12', '+99']],
    ['colou?r\\d\\d', ['color12', 'colour34']],
  ])('a file with a match of %s passes', (source, texts) => {
    const groups = regexGramGroups(source) ?? [];
    for (const text of texts) {
      expect(new RegExp(source, 'u').test(text), `${text} matches ${source}`).toBe(true);
      expect(mayContainOneOfEach(filterOf(text), groups), text).toBe(true);
    }
  });

  it('rules out a file without a match', () => {
    const groups = regexGramGroups('[0-9]{4}-[0-9]{2}-[0-9]{2}T')!;
    expect(mayContainOneOfEach(filterOf('no dates here, only words and 12 numbers'), groups)).toBe(false);
  });
});
