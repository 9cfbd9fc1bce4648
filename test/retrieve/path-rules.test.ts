import { describe, expect, it } from 'vitest';
import { compilePathRules } from '../../src/retrieve/patterns/path-rules.js';
import { codeOf } from '../helpers/errors.js';

/** The tree of each case, as rg 13 and 14 decide it (checked by hand with rg -l on the same files). */
const FILES = ['README.md', 'src/a.ts', 'src/c.js', 'src/sub/b.py', 'docs/guide.md', 'Makefile'];

const kept = (globs: string[], types: string[] = []) => {
  const rules = compilePathRules({ globs, types, hidden: false });
  return rules ? FILES.filter((f) => rules(f)) : FILES;
};

describe('compilePathRules: which files rg -g and -t take', () => {
  it.each<[string, string[], string[], string[]]>([
    // label, globs, types -> files kept
    ['nothing asked: every file', [], [], FILES],
    ['an include: only what it matches', ['*.ts'], [], ['src/a.ts']],
    ['an exclude alone: everything else', ['!*.py'], [], ['README.md', 'src/a.ts', 'src/c.js', 'docs/guide.md', 'Makefile']],
    ['the later glob wins: include then exclude', ['*.ts', '!a.ts'], [], []],
    ['the later glob wins: exclude then include', ['!a.ts', '*.ts'], [], ['src/a.ts']],
    ['several includes', ['*.md', '*.js'], [], ['README.md', 'src/c.js', 'docs/guide.md']],
    ['an excluded folder takes all it holds', ['!src'], [], ['README.md', 'docs/guide.md', 'Makefile']],
    ['a nested folder by name', ['!sub'], [], ['README.md', 'src/a.ts', 'src/c.js', 'docs/guide.md', 'Makefile']],
    ['a folder-only exclude', ['!sub/'], [], ['README.md', 'src/a.ts', 'src/c.js', 'docs/guide.md', 'Makefile']],
    ['a folder-only glob matches no file', ['!a.ts/'], [], FILES],
    ['a path from the root', ['!/src'], [], ['README.md', 'docs/guide.md', 'Makefile']],
    ['a leading slash anchors a name to the root', ['/README.md'], [], ['README.md']],
    ['a path with a slash is from the root', ['sub/*'], [], []],
    ['a folder glob includes no file', ['src'], [], []],
    ['everything under a folder', ['src/**'], [], ['src/a.ts', 'src/c.js', 'src/sub/b.py']],
    ['an excluded folder stays out though a later glob includes its files', ['!src', '*.ts'], [], []],
    ['a type', [], ['py'], ['src/sub/b.py']],
    ['two types', [], ['ts', 'js'], ['src/a.ts', 'src/c.js']],
    ['a type by file name', [], ['make'], ['Makefile']],
    ['an include glob overrides the type', ['*.ts'], ['py'], ['src/a.ts']],
    ['an exclude narrows the type', ['!*.md'], ['py', 'md'], ['src/sub/b.py']],
    ['an exclude of what the type takes', ['!a.ts'], ['ts'], []],
  ])('%s', (_label, globs, types, expected) => {
    expect(kept(globs, types)).toEqual(expected);
  });

  it('refuses an unknown type with the ones it may mean, and an empty glob', () => {
    expect(() => compilePathRules({ globs: [], types: ['pyhton'], hidden: false })).toThrow(/Unknown file type "pyhton"/);
    expect(codeOf(() => compilePathRules({ globs: [], types: ['pyhton'], hidden: false }))).toBe('INVALID_INPUT');
    expect(codeOf(() => compilePathRules({ globs: ['!'], types: [], hidden: false }))).toBe('FILE_GLOB_INVALID');
  });

  it('says when a glob needs a backtracking engine', () => {
    expect(compilePathRules({ globs: ['*.ts'], types: [], hidden: false })!.backtracks).toBe(false);
    expect(compilePathRules({ globs: ['*.@(ts|js)'], types: [], hidden: false })!.backtracks).toBe(true);
  });
});
