import { describe, expect, it } from 'vitest';
import { ConditionInputError, globMatches, jsonText, linearMatches, nameGlob, under } from '../../src/conditions/functions.js';

describe('under (lexical)', () => {
  it.each([
    ['/srv/docs', '/srv/docs', true],
    ['/srv/docs/a.md', '/srv/docs', true],
    ['/srv/docs/sub/../a.md', '/srv/docs', true],
    ['/srv/docs/./a.md', '/srv/docs', true],
    ['/srv//docs///a.md', '/srv/docs', true],
    ['/srv/docs/a.md', '/srv/docs/', true],
    ['/srv/docs/../etc/passwd', '/srv/docs', false],
    ['/srv/docs/..', '/srv/docs', false],
    ['/srv/docs/../docsX/a', '/srv/docs', false],
    ['/srv/docsX', '/srv/docs', false],
    ['/srv/docsX/a.md', '/srv/docs', false],
    ['/srv/doc', '/srv/docs', false],
    ['/etc/passwd', '/srv/docs', false],
    ['/../srv/docs/a', '/srv/docs', true], // ".." above the root is the root
    ['srv/docs/a.md', '/srv/docs', false], // relative: resolved by the upstream against a folder the condition cannot see
    ['./a.md', '/srv/docs', false],
    ['../a.md', '/srv/docs', false],
    ['~/a.md', '/srv/docs', false],
    ['~root/srv/docs', '/srv/docs', false],
    ['', '/srv/docs', false],
    ['/srv/docs/a\0/../../etc', '/srv/docs', false],
    ['/anything', '/', true],
  ])('under(%j, %j) is %s', (path, root, expected) => {
    expect(under(path, root)).toBe(expected);
  });

  it.each([
    ['/srv/docs/a', ['/srv/x', '/srv/docs'], true],
    ['/srv/other/a', ['/srv/x', '/srv/docs'], false],
    ['/srv/docs/a', [], false],
  ])('under(%j, %j) is %s', (path, roots, expected) => {
    expect(under(path, roots)).toBe(expected);
  });

  it.each(['docs', '~/docs', ''])('refuses the root %j: an error, which refuses the call', (root) => {
    expect(() => under('/srv/docs/a', root)).toThrow(ConditionInputError);
  });
});

describe('glob (paths) and nameGlob (tool names)', () => {
  it.each([
    ['/srv/docs/a.md', '/srv/docs/*.md', true],
    ['/srv/docs/sub/a.md', '/srv/docs/*.md', false],
    ['/srv/docs/sub/a.md', '/srv/docs/**', true],
    ['/srv/docs/a.md', '/srv/docs/?.md', true],
    ['/srv/docs/a.txt', '/srv/docs/*.{md,txt}', true],
    ['/srv/docs/a.js', '/srv/docs/*.{md,txt}', false],
    ['a.md', '[ab].md', true],
    ['c.md', '[!ab].md', true],
    ['a.md', '[!ab].md', false],
    ['a*b', 'a\\*b', true],
    ['axb', 'a\\*b', false],
    ['a.b', 'a.b', true],
    ['axb', 'a.b', false],
    ['line\nbreak', 'line*break', true],
  ])('glob(%j, %j) is %s', (text, pattern, expected) => {
    expect(globMatches(text, pattern)).toBe(expected);
  });

  it.each([
    ['files__read_file', 'files__*', true],
    ['files__a/b', 'files__*', true], // a name's "*" crosses "/": a condition never misses a tool of its server
    ['files__../x', 'files__*', true],
    ['filesX__read', 'files__*', false],
    ['github__create_issue', 'github__create_issue', true],
    ['github__create_issues', 'github__create_issue', false],
    ['anything', '*', true],
    ['a__b', '{a,c}__*', true],
  ])('nameGlob(%j) on %j is %s', (name, pattern, expected) => {
    expect(nameGlob(pattern)(name)).toBe(expected);
  });

  it('refuses a "{" without "}"', () => {
    expect(() => nameGlob('a{b')).toThrow(/without its/);
  });
});

describe('linearMatches (RE2)', () => {
  it.each([
    ['acme/app', '^acme/(app|docs)$', true],
    ['acme/apps', '^acme/(app|docs)$', false],
    ['xx-123-yy', '[0-9]+', true], // anywhere in the text, as CEL says
  ])('%j matches %j: %s', (text, pattern, expected) => {
    expect(linearMatches(text, pattern)).toBe(expected);
  });

  it('runs a backtracking pattern in linear time', () => {
    // V8's engine takes about 2^n steps on this; RE2 one pass. Not a timing test: it would not end.
    expect(linearMatches(`${'a'.repeat(5000)}!`, '^(a+)+$')).toBe(false);
  });

  it.each(['(?=a)', '(a', '\\1'])('refuses %j (not RE2, or not a pattern)', (pattern) => {
    expect(() => linearMatches('a', pattern)).toThrow(ConditionInputError);
  });
});

describe('jsonText', () => {
  it.each([
    ['an object', { a: 1, b: 'x' }, '{"a":1,"b":"x"}'],
    ['a CEL int', 10n, '10'],
    ['a CEL map', new Map([['k', 1n]]), '{"k":1}'],
    ['a list', [1, 'two'], '[1,"two"]'],
    ['nothing', undefined, 'null'],
  ])('json(%s)', (_what, value, text) => {
    expect(jsonText(value)).toBe(text);
  });
});
