import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileNameRules, nameVerdict, namePatternRegExp } from '../../src/retrieve/patterns/name-rules.js';
import { tempDir } from '../helpers/cli.js';

describe('namePatternRegExp', () => {
  it.each([
    ['*.log', ['a.log', '.log', 'x.y.log'], ['a.log.txt', 'alog']],
    ['**.map', ['a.map', 'b.c.map'], ['map']],
    ['?.js', ['a.js'], ['ab.js', '.js']],
    ['[abc].txt', ['a.txt', 'c.txt'], ['d.txt', 'ab.txt']],
    ['[!abc].txt', ['d.txt'], ['a.txt']],
    ['[^abc].txt', ['d.txt'], ['a.txt']],
    ['[a-c]x', ['bx'], ['dx', '-x']],
    ['[]]x', [']x'], ['x']],
    ['\\*literal', ['*literal'], ['xliteral']],
    ['\\#hash', ['#hash'], ['hash']],
    ['a+b(c).{d}|e$^', ['a+b(c).{d}|e$^'], ['aab(c)x{d}|e$^']],
    ['node_modules', ['node_modules'], ['node_modules2', 'xnode_modules']],
  ])('%s', (pattern, yes, no) => {
    const re = namePatternRegExp(pattern)!;
    for (const name of yes) expect(re.test(name), name).toBe(true);
    for (const name of no) expect(re.test(name), name).toBe(false);
  });

  it.each([['[[:alpha:]]x'], ['[abc'], ['trailing\\']])('leaves %s to the ignore package', (pattern) => {
    expect(namePatternRegExp(pattern)).toBeUndefined();
  });
});

describe('compileNameRules', () => {
  it('reads negation, folder-only rules, comments and trailing spaces as git does', () => {
    const rules = compileNameRules('# comment\n\n*.log\n!keep.log\nbuild/\nspace\\ \ntrail   \r\n')!;
    expect(rules.map((r) => [r.re.source, r.negative, r.dirOnly])).toEqual([
      ['^[^/]*\\.log$', false, false],
      ['^keep\\.log$', true, false],
      ['^build$', false, true],
      ['^space $', false, false],
      ['^trail$', false, false],
    ]);
  });

  it('is undefined for a text with a rule it cannot compile', () => {
    expect(compileNameRules('*.log\n[[:digit:]]x\n')).toBeUndefined();
  });
});

/**
 * The compiled rules against git itself (`git check-ignore`): every name below, as a file and as
 * a folder, under every rule file below.
 */
describe('nameVerdict agrees with git check-ignore', () => {
  const names = ['a.log', 'keep.log', 'build', 'Build', 'x.map', '.hidden', 'b.txt', 'c.txt', 'space ', 'star*', 'q1', 'q12', '#x', '!bang', 'a[b', 'trail'];
  it.each([
    ['*.log\n!keep.log\n'],
    ['build/\n*.map\n'],
    ['*\n!*.txt\n!*/\n'],
    ['.*\n[bc].txt\n'],
    ['space\\ \nstar\\*\nq?\n'],
    ['\\#x\n\\!bang\n[!b]*.txt\n'],
    ['trail   \nBUILD\n**.log\n'],
  ])('%j', (text) => {
    // Real files and folders: git decides whether a path is a folder from the disk.
    const root = tempDir('mcpkit-name-rules-');
    for (const kind of ['f', 'd']) {
      mkdirSync(join(root, kind));
      writeFileSync(join(root, kind, '.gitignore'), text);
      for (const n of names) {
        if (kind === 'f') writeFileSync(join(root, kind, n), '');
        else {
          mkdirSync(join(root, kind, n));
          writeFileSync(join(root, kind, n, 'inside'), '');
        }
      }
    }
    execFileSync('git', ['init', '-q'], { cwd: root });
    const paths = names.flatMap((n) => [`f/${n}`, `d/${n}`]);
    // check-ignore exits 1 when nothing is ignored; --stdin -z keeps names with spaces intact.
    let out: string;
    try {
      out = execFileSync('git', ['check-ignore', '--stdin', '-z', '--no-index'], { cwd: root, input: paths.join('\0'), encoding: 'utf8' });
    } catch (error) {
      out = (error as { stdout?: string }).stdout ?? '';
    }
    const gitIgnored = new Set(out.split('\0').filter(Boolean));
    const rules = compileNameRules(text)!;
    expect(rules).toBeDefined();
    for (const path of paths) {
      const isDir = path.startsWith('d/');
      const name = path.slice(2);
      expect(nameVerdict(rules, name, isDir).ignored, `${JSON.stringify(text)}: ${path}`).toBe(gitIgnored.has(path));
    }
  });
});
