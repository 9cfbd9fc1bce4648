import { describe, expect, it } from 'vitest';
import { chooseRoots, isInside, normalizeRelative } from '../../src/retrieve/paths.js';

describe('normalizeRelative', () => {
  it.each([
    ['guide.md', ['guide.md']],
    ['docs/guide.md', ['docs', 'guide.md']],
    ['./docs//guide.md', ['docs', 'guide.md']],
    ['docs\\win\\style.md', ['docs', 'win', 'style.md']],
    ['a/b/../c', ['a', 'c']],
    ['a/..', []],
    ['a/./b/.', ['a', 'b']],
    ['..foo/bar', ['..foo', 'bar']],
    ['foo../bar', ['foo..', 'bar']],
    ['．．/x', ['．．', 'x']], // fullwidth dots are a name, not ..
    ['café/naïve.md', ['café', 'naïve.md']],
    ['%2e%2e/x', ['%2e%2e', 'x']], // no URL decoding
    ['a/b/../../c', ['c']],
  ])('%j -> %j', (input, segments) => {
    expect(normalizeRelative(input)).toEqual({ segments });
  });

  it.each([
    ['', 'PATH_EMPTY'],
    ['   ', 'PATH_EMPTY'],
    ['..', 'PATH_OUT_OF_ROOT'],
    ['../etc/passwd', 'PATH_OUT_OF_ROOT'],
    ['a/../../b', 'PATH_OUT_OF_ROOT'],
    ['a/b/../../../c', 'PATH_OUT_OF_ROOT'],
    ['..\\..\\windows', 'PATH_OUT_OF_ROOT'],
    ['/etc/passwd', 'PATH_OUT_OF_ROOT'],
    ['\\\\server\\share', 'PATH_OUT_OF_ROOT'],
    ['C:\\Windows', 'PATH_OUT_OF_ROOT'],
    ['c:/x', 'PATH_OUT_OF_ROOT'],
    ['~/secrets', 'PATH_OUT_OF_ROOT'],
    ['docs/\0/x', 'PATH_OUT_OF_ROOT'],
    ['guide.md\0.png', 'PATH_OUT_OF_ROOT'],
  ])('refuses %j with %s', (input, code) => {
    expect(normalizeRelative(input)).toMatchObject({ code });
  });
});

describe('chooseRoots', () => {
  const roots = ['docs', 'code'];
  it.each([
    [['docs', 'a.md'], undefined, { roots: ['docs'], segments: ['a.md'], prefixed: true }],
    [['a.md'], undefined, { roots: ['docs', 'code'], segments: ['a.md'], prefixed: false }],
    [['docs', 'a.md'], 'code', { roots: ['code'], segments: ['docs', 'a.md'], prefixed: false }],
    [['documents', 'a.md'], undefined, { roots: ['docs', 'code'], segments: ['documents', 'a.md'], prefixed: false }],
    [[], undefined, { roots: ['docs', 'code'], segments: [], prefixed: false }],
  ])('%j repo=%s', (segments, repo, expected) => {
    expect(chooseRoots(segments, roots, repo)).toEqual(expected);
  });
});

describe('isInside', () => {
  it.each([
    ['/a/b', '/a/b', true],
    ['/a/b', '/a/b/c', true],
    ['/a/b', '/a/bc', false],
    ['/a/b', '/a/bc/d', false],
    ['/a/b', '/a', false],
    ['/a/b/', '/a/b/c', true],
    ['/', '/anything', true],
  ])('%s contains %s: %s', (parent, child, expected) => {
    expect(isInside(parent, child)).toBe(expected);
  });
});
