import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ignoredBy, IgnoreRules, type RuleFrame } from '../../src/retrieve/patterns/ignore-rules.js';
import { literalRuns, mayMatchSome, ruleLiterals } from '../../src/retrieve/patterns/rule-literals.js';
import { tempDir } from '../helpers/cli.js';

/**
 * The literal prefilter in front of the `ignore` package (rule-literals.ts): which runs a
 * pattern is sure to need, that it never changes a verdict (checked against the package itself,
 * over every path of a grid, for a real project's .gitignore and for the awkward corners of the
 * syntax), and that a walk no longer asks the package about paths no rule can match.
 */

/** babel's root .gitignore (the tree the cold-search benchmark walks), with slashes, negations and `**`. */
const BABEL_GITIGNORE = [
  '.npmrc',
  '.yarn/cache',
  '.yarn/unplugged',
  '.DS_Store',
  '**/node_modules',
  '!**/test/fixtures/**/node_modules',
  '/packages/*/LICENSE',
  '!/packages/babel-helpers/LICENSE',
  '*.log',
  '*.cache',
  'coverage',
  'dist',
  '/packages/babel-compat-data/build',
  '/packages/babel-runtime/helpers/*.js',
  '!/packages/babel-runtime/helpers/typeof.js',
  '/packages/babel-runtime-corejs3/core-js/**/*.js',
  '/packages/*/lib',
  'packages/babel-standalone/babel.js',
  '/build',
  '.idea/',
  '/.vscode/**',
  '!/.vscode/settings.example.json',
  '*.tsbuildinfo',
].join('\n');

/** The syntax's corners: classes, escapes, `?`, a trailing space, a comment, a `!` alone, a leading `\#`. */
const AWKWARD = ['# a comment', '', '   ', 'file?.txt', 'x[ab]y.md', '\\#hash', '\\!bang', 'trail\\ ', 'a/**/b', 'ends-with-space ', '!', 'lib/'].join('\n');

describe('literalRuns', () => {
  it.each([
    ['*.log', ['.log']],
    ['/packages/*/LICENSE', ['LICENSE', 'packages']], // the first run, most often a shared top folder, last
    ['/packages/babel-runtime/helpers/*.js', ['babel-runtime', 'helpers', '.js', 'packages']],
    ['**/node_modules', ['node_modules']],
    ['x[ab]y.md', ['y.md', 'x']], // the class is no literal
    ['\\#hash', ['hash']], // the escaped character is left out
    ['a[b', ['a']], // after an unclosed class nothing is counted on
    ['file?.txt', ['.txt', 'file']],
    ['*', []],
    ['**/', []],
  ])('%s', (pattern, runs) => {
    expect(literalRuns(pattern)).toEqual(runs);
  });
});

describe('ruleLiterals', () => {
  it('skips comments and blank lines, and keeps a negated rule', () => {
    expect(ruleLiterals('# c\n\n  \n*.log\n!keep.log\n')).toEqual([['.log'], ['keep.log']]);
  });

  it('turns the filter off when a rule has no literal (it may match any path)', () => {
    expect(ruleLiterals('*.log\n*\n')).toBeUndefined();
    expect(ruleLiterals('*.log\n!\n')).toBeUndefined(); // unsure what a lone "!" is: off
  });

  it('counts a line with a leading space or a byte order mark past the first line as a rule', () => {
    expect(ruleLiterals(' #x\n')).toEqual([['x']]);
    expect(ruleLiterals('a\n\uFEFF#b\n')).toEqual([['a'], ['b']]);
    expect(ruleLiterals('\uFEFF#only a comment\n')).toEqual([]);
  });

  it('mayMatchSome asks for every literal of one rule', () => {
    const rules = [['packages', 'LICENSE'], ['.log']];
    expect(mayMatchSome(rules, 'packages/x/LICENSE')).toBe(true);
    expect(mayMatchSome(rules, 'packages/x/README')).toBe(false);
    expect(mayMatchSome(rules, 'a/b.log')).toBe(true);
  });
});

/** Every path of a grid of segments (files and folders), as a walk of many trees would ask. */
function grid(): { rel: string; dir: boolean }[] {
  const first = ['packages', '.vscode', '.yarn', 'build', 'test', 'src', 'lib', 'a', '#hash', '!bang', 'node_modules'];
  const second = ['babel-helpers', 'babel-runtime', 'babel-runtime-corejs3', 'babel-standalone', 'fixtures', 'cache', 'b', 'coverage'];
  const third = ['LICENSE', 'lib', 'helpers', 'core-js', 'build', 'node_modules', 'dist', 'x', 'b'];
  const leaves = [
    'typeof.js',
    'other.js',
    'babel.js',
    'settings.example.json',
    'a.log',
    'x.tsbuildinfo',
    'fileA.txt',
    'xay.md',
    'trail ',
    'ends-with-space',
    'keep.txt',
  ];
  const out: { rel: string; dir: boolean }[] = [];
  for (const a of first) {
    out.push({ rel: a, dir: true }, { rel: a, dir: false });
    for (const b of second) {
      out.push({ rel: `${a}/${b}`, dir: true });
      for (const c of third) {
        out.push({ rel: `${a}/${b}/${c}`, dir: true }, { rel: `${a}/${b}/${c}`, dir: false });
        for (const leaf of leaves) out.push({ rel: `${a}/${b}/${c}/${leaf}`, dir: false });
      }
    }
  }
  return out;
}

describe('the prefilter never changes a verdict', () => {
  it.each([
    ['babel', BABEL_GITIGNORE],
    ['the awkward corners', AWKWARD.replace('\n!\n', '\n')], // a lone "!" would turn it off: tested above
  ])("%s's .gitignore: the same verdict as the ignore package alone, at the root and below it", (_label, text) => {
    const root = tempDir('mcpkit-literals-');
    writeFileSync(join(root, '.gitignore'), text);
    const rules = new IgnoreRules(root).rulesOf('')!;
    expect(rules.literals).toBeDefined();
    const { literals: _, ...unfiltered } = rules;
    const paths = grid();
    let differ = 0;
    let ignored = 0;
    for (const frameOf of [(r: typeof rules) => ({ offset: 0, rules: r }), (r: typeof rules) => ({ offset: 0, prefix: 'outer/', rules: r })]) {
      for (const { rel, dir } of paths) {
        const filtered = ignoredBy([frameOf(rules)], rel, dir, true);
        if (filtered !== ignoredBy([frameOf(unfiltered)], rel, dir, true)) differ++;
        if (filtered) ignored++;
      }
    }
    expect(paths.length).toBeGreaterThan(5000);
    expect(differ).toBe(0);
    expect(ignored).toBeGreaterThan(100); // the grid meets the rules, not only passes them by
  });
});

describe('a walk asks the ignore package only about paths that hold some rule’s literals', () => {
  it('answers a path without any of them without asking', () => {
    const root = tempDir('mcpkit-literals-');
    writeFileSync(join(root, '.gitignore'), BABEL_GITIGNORE);
    const rules = new IgnoreRules(root).rulesOf('')!;
    const asked: string[] = [];
    const test = rules.ignore.test.bind(rules.ignore);
    rules.ignore.test = (path) => (asked.push(path), test(path));
    const frames: RuleFrame[] = [{ offset: 0, rules }];
    const ordinary = ['src/index.ts', 'packages/babel-core/src/index.ts', 'packages/babel-core/test', 'README.md'];
    for (const rel of ordinary) expect(ignoredBy(frames, rel, !rel.includes('.'), true)).toBe(false);
    expect(asked).toEqual([]);
    // Those that may match still go to the package, which decides.
    expect(ignoredBy(frames, 'packages/babel-core/LICENSE', false, true)).toBe(true);
    expect(ignoredBy(frames, 'packages/babel-helpers/LICENSE', false, true)).toBe(false);
    expect(asked).toEqual(['packages/babel-core/LICENSE', 'packages/babel-helpers/LICENSE']);
  });
});
