import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { literalMatcher, regexMatcher, requiredLiteral } from '../../src/retrieve/patterns/line-matcher.js';
import { rootSpecs, validateRoots, type Root } from '../../src/retrieve/roots.js';
import { findFiles, searchRoots } from '../../src/retrieve/search.js';
import { bestLines } from '../../src/retrieve/smart-search.js';
import { tempDir } from '../helpers/cli.js';

let base: string;
let roots: Root[];
const lit = (q: string) => literalMatcher(Buffer.from(q));
const run = (matcher: ReturnType<typeof lit>, extra: Partial<Parameters<typeof searchRoots>[1]> = {}) =>
  searchRoots(roots, { matcher, limit: 1000, context: 0, hidden: false, ...extra });

beforeAll(() => {
  base = tempDir('mcpkit-search-');
  const files: Record<string, string | Buffer> = {
    'docs/b.md': 'needle in docs\n',
    'docs/a/z.md': 'needle deep\nno\nneedle again\n',
    'docs/a-b.md': 'needle dash\n',
    'code/.gitignore': 'dist/\n*.log\n!keep.log\nsub/ignored.txt\n',
    'code/src/x.ts': 'const needle = 1;\n// needle twice needle on one line\n',
    'code/dist/out.js': 'needle built\n',
    'code/debug.log': 'needle log\n',
    'code/keep.log': 'needle kept\n',
    'code/sub/.gitignore': '!ignored.txt\n*.tmp\n',
    'code/sub/ignored.txt': 'needle re-included by a deeper rule\n',
    'code/sub/t.tmp': 'needle tmp\n',
    'code/.hidden/h.txt': 'needle hidden\n',
    'code/bin.dat': Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2])]),
    'code/big.txt': `needle big\n${'x'.repeat(3000)}\n`,
    'code/crlf.txt': 'first\r\nneedle crlf\r\n',
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(base, path, '..'), { recursive: true });
    writeFileSync(join(base, path), content);
  }
  roots = validateRoots(rootSpecs({ configured: { docs: join(base, 'docs'), code: join(base, 'code') }, configDir: base, env: {}, cwd: base, implicit: base }));
});

describe('searchRoots', () => {
  it('orders by root as configured, then path as rg --sort path (folder by folder), then line', () => {
    const out = run(lit('needle'));
    expect(out.matches.map((m) => `${m.path}:${m.line}`)).toEqual([
      'docs/a/z.md:1', // the folder a before the file a-b.md, as rg --sort path
      'docs/a/z.md:3',
      'docs/a-b.md:1',
      'docs/b.md:1',
      'code/big.txt:1', // files of any size are searched
      'code/crlf.txt:2',
      'code/keep.log:1',
      'code/src/x.ts:1',
      'code/src/x.ts:2',
      'code/sub/ignored.txt:1',
    ]);
    expect(out.matches.find((m) => m.path === 'code/crlf.txt')!.text).toBe('needle crlf');
    expect(out.skipped).toEqual({ binary: 1, path_too_long: 0, name_not_utf8: 0 });
    expect(out.truncated).toBe(false);
  });

  it('stops at the limit and says so', () => {
    const out = run(lit('needle'), { limit: 3 });
    expect(out.matches).toHaveLength(3);
    expect(out.truncated).toBe(true);
  });

  it('with any limit, gives the first matches of the whole search, truncated only when one is left over', () => {
    const all = run(lit('needle'));
    const total = all.matches.length;
    expect(total).toBe(10);
    let searchedBefore = 0;
    for (let limit = 1; limit <= total + 1; limit++) {
      const streamed: string[] = [];
      const out = run(lit('needle'), { limit, onMatch: (m) => streamed.push(`${m.path}:${m.line}`) });
      const expected = all.matches.slice(0, limit).map((m) => `${m.path}:${m.line}`);
      expect(
        out.matches.map((m) => `${m.path}:${m.line}`),
        `limit ${limit}`,
      ).toEqual(expected);
      expect(streamed, `limit ${limit}`).toEqual(expected);
      expect(out.truncated, `limit ${limit}`).toBe(limit < total);
      // A truncated search stops at the file holding the first match left over; the rest are not read.
      expect(out.files_searched, `limit ${limit}`).toBeGreaterThanOrEqual(searchedBefore);
      expect(out.files_searched <= all.files_searched).toBe(true);
      searchedBefore = out.files_searched;
    }
    expect(run(lit('needle'), { limit: total }).files_searched).toBe(all.files_searched); // exactly the limit: every file was searched
  });

  it('gives context lines', () => {
    const out = run(lit('again'), { context: 1 });
    expect(out.matches).toEqual([{ repo: 'docs', path: 'docs/a/z.md', line: 3, text: 'needle again', before: ['no'], after: [] }]);
  });

  it('searches dotfiles only when asked, never .git', () => {
    expect(run(lit('needle hidden')).matches).toEqual([]);
    expect(run(lit('needle hidden'), { hidden: true }).matches.map((m) => m.path)).toEqual(['code/.hidden/h.txt']);
  });

  it('uses a regex with its required literal as a prefilter', () => {
    const re = /needle \w+ again|needle (again|deep)/;
    expect(requiredLiteral(re.source)).toBeUndefined();
    expect(run(regexMatcher(re, undefined)).matches.map((m) => m.text)).toEqual(['needle deep', 'needle again']);
    const prefiltered = /const needle = \d+;/;
    expect(run(regexMatcher(prefiltered, Buffer.from(requiredLiteral(prefiltered.source)!))).matches.map((m) => m.path)).toEqual(['code/src/x.ts']);
  });

  it('agrees with git grep on which (file, line) pairs match', () => {
    const repo = join(base, 'code');
    execFileSync('git', ['init', '-q'], { cwd: repo });
    const git = execFileSync('git', ['grep', '-n', '-I', '--untracked', '-F', 'needle'], { cwd: repo, encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((l) => l.split(':').slice(0, 2).join(':'))
      .sort();
    const ours = searchRoots([roots[1]!], { matcher: lit('needle'), limit: 1000, context: 0, hidden: false })
      .matches.map((m) => `${m.path.replace(/^code\//, '')}:${m.line}`)
      .sort();
    // git grep also searches dotfiles; we leave them out unless --hidden.
    expect(ours).toEqual(git.filter((l) => !l.startsWith('.hidden/')));
  });
});

describe('findFiles', () => {
  it('lists matching files in order, respecting .gitignore', () => {
    const md = findFiles(roots, (rel) => rel.endsWith('.md'), { limit: 100, hidden: false });
    expect(md).toEqual({
      files: [
        { repo: 'docs', path: 'docs/a/z.md' },
        { repo: 'docs', path: 'docs/a-b.md' },
        { repo: 'docs', path: 'docs/b.md' },
      ],
      truncated: false,
      skipped: { path_too_long: 0, name_not_utf8: 0 },
    });
    expect(findFiles(roots, (rel) => rel.endsWith('.log'), { limit: 100, hidden: false }).files.map((f) => f.path)).toEqual(['code/keep.log']);
    expect(findFiles(roots, () => true, { limit: 2, hidden: false }).truncated).toBe(true);
  });
});

describe('smartSearch', async () => {
  const { queryTerms, smartSearch } = await import('../../src/retrieve/smart-search.js');

  it.each([
    ['How are config edits locked?', ['config', 'edits', 'locked']],
    ['the', ['the']],
    ['createServer in http.ts', ['createserver', 'http', 'ts']],
    ['  ', []],
  ])('queryTerms(%j)', (query, terms) => {
    expect(queryTerms(query)).toEqual(terms);
  });

  it('ranks files by how much of the question they hold, with their best lines', () => {
    const out = smartSearch(roots, queryTerms('needle deep again'), { maxFileBytes: 1000, limit: 10, linesPerFile: 2 });
    expect(out.files[0]).toEqual({
      repo: 'docs',
      path: 'docs/a/z.md',
      terms: ['needle', 'deep', 'again'],
      lines: [
        { line: 1, text: 'needle deep' },
        { line: 3, text: 'needle again' },
      ],
    });
    // Terms match inside words: "deeper" counts for "deep", so that file ranks next; among files
    // holding only "needle", more of it in fewer bytes ranks higher, and ties keep the walk's order.
    expect(out.files.slice(1).map((f) => f.path)).toEqual([
      'code/sub/ignored.txt',
      'docs/a-b.md',
      'code/keep.log',
      'code/src/x.ts',
      'docs/b.md',
      'code/crlf.txt',
    ]);
    expect(out.files.find((f) => f.path === 'code/crlf.txt')!.lines).toEqual([{ line: 2, text: 'needle crlf' }]);
    expect(smartSearch(roots, ['needle'], { maxFileBytes: 1000, limit: 2, linesPerFile: 1 }).truncated).toBe(true);
  });
});

describe('bestLines', () => {
  const best = (text: string, terms: string[], count = 5) => bestLines(text, text.toLowerCase(), terms, count);
  it.each([
    [
      'one\ntwo lock\nlock file\nthree',
      ['lock', 'file'],
      5,
      [
        { line: 2, text: 'two lock' },
        { line: 3, text: 'lock file' },
      ],
    ],
    ['one\ntwo lock\nlock file\nthree', ['lock', 'file'], 1, [{ line: 3, text: 'lock file' }]], // most terms first
    [
      'lock\nlock\nlock',
      ['lock'],
      2,
      [
        { line: 1, text: 'lock' },
        { line: 2, text: 'lock' },
      ],
    ], // ties: earlier line
    ['LOCK here\r\nnone\r\n', ['lock'], 5, [{ line: 1, text: 'LOCK here' }]], // CRLF, case kept in the text
    ['\u0130\u0130 x\nthe lock', ['lock'], 5, [{ line: 2, text: 'the lock' }]], // lower-casing changed lengths
    ['lock lock lock', ['lock'], 5, [{ line: 1, text: 'lock lock lock' }]],
    ['nothing', ['lock'], 5, []],
  ])('%j %j (top %i)', (text, terms, count, expected) => {
    expect(best(text, terms, count)).toEqual(expected);
  });
});
