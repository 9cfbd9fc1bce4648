import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { byNameOnly } from '../../src/retrieve/patterns/ignore-rules.js';
import { walkFiles } from '../../src/retrieve/walk.js';
import { tempDir } from '../helpers/cli.js';

describe('byNameOnly', () => {
  it.each([
    ['*.map\n.bin/\n', true],
    ['# comment\n\nbuild\n!keep.log\n', true],
    ['/dist\n', false],
    ['docs/*.md\n', false],
    ['**/tmp\n', false],
    ['\\!important\ntrailing   \n', true],
  ])('%j -> %s', (text, expected) => {
    expect(byNameOnly(text)).toBe(expected);
  });
});

describe('the walk agrees with git on which files .gitignore leaves out', () => {
  it.each([
    [
      'name-only rules at several depths',
      {
        '.gitignore': '*.map\nbuild\n',
        'a/x.js': '',
        'a/x.js.map': '',
        'a/build/y.js': '',
        'b/.gitignore': '!build\n',
        'b/build/z.js': '',
        'b/build/z.map': '',
      },
    ],
    [
      'rules with slashes',
      {
        '.gitignore': '/top.txt\ndocs/*.md\n**/tmp/\n',
        'top.txt': '',
        'sub/top.txt': '',
        'docs/a.md': '',
        'docs/deep/b.md': '',
        'x/tmp/t.txt': '',
        'x/keep.txt': '',
      },
    ],
    ['negation of a file', { '.gitignore': '*.log\n!keep.log\n', 'a.log': '', 'keep.log': '', 'd/keep.log': '', 'd/b.log': '' }],
    [
      'a nested rule file with a slash pattern',
      { 'pkg/.gitignore': 'lib/*.js\n!lib/main.js\n', 'pkg/lib/a.js': '', 'pkg/lib/main.js': '', 'pkg/lib/c.ts': '', 'lib/a.js': '' },
    ],
  ])('%s', (_label, files) => {
    const root = tempDir('mcpkit-walk-git-');
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    execFileSync('git', ['init', '-q'], { cwd: root });
    const git = execFileSync('git', ['ls-files', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && !f.split('/').some((part) => part.startsWith('.')))
      .sort();
    const ours: string[] = [];
    walkFiles({ name: 'code', path: root }, {}, (rel) => (ours.push(rel), true));
    expect(ours.sort()).toEqual(git);
  });
});

describe('a root below the top of a git work tree takes the rules above it, as git does', () => {
  it.each([
    ['the top leaves out by name', 'sub', { '.gitignore': '*.log\nbuild/\n', 'sub/a.ts': '', 'sub/b.log': '', 'sub/build/c.ts': '', 'sub/d/e.log': '' }],
    [
      'rules with slashes above the root',
      'sub',
      { '.gitignore': 'sub/gen/\n/sub/top.txt\nsub/**/*.tmp\n', 'sub/gen/x.ts': '', 'sub/top.txt': '', 'sub/k/top.txt': '', 'sub/k/y.tmp': '', 'sub/z.ts': '' },
    ],
    [
      'two levels, a nested file re-including',
      'a/b',
      {
        '.gitignore': '*.log\n',
        'a/.gitignore': 'secret*\n',
        'a/b/.gitignore': '!keep.log\n',
        'a/b/x.log': '',
        'a/b/keep.log': '',
        'a/b/secret.txt': '',
        'a/b/ok.md': '',
      },
    ],
    ['.git/info/exclude at the top', 'sub', { '.git-exclude': 'private.txt\n', 'sub/private.txt': '', 'sub/public.txt': '' }],
  ] as [string, string, Record<string, string>][])('%s', (_label, under, files) => {
    const top = tempDir('mcpkit-walk-top-');
    execFileSync('git', ['init', '-q'], { cwd: top });
    for (const [path, content] of Object.entries(files)) {
      const target = path === '.git-exclude' ? join(top, '.git/info/exclude') : join(top, path);
      mkdirSync(join(target, '..'), { recursive: true });
      writeFileSync(target, content);
    }
    const git = execFileSync('git', ['ls-files', '--others', '--exclude-standard', '--', under], { cwd: top, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && !f.split('/').some((part) => part.startsWith('.')))
      .map((f) => f.slice(under.length + 1))
      .sort();
    expect(git.length, 'the tree keeps some files').toBeGreaterThan(0);
    const ours: string[] = [];
    walkFiles({ name: 'code', path: join(top, under) }, {}, (rel) => (ours.push(rel), true));
    expect(ours.sort()).toEqual(git);
  });
});
