import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { FileIndexes, RACY_MS } from '../../src/retrieve/file-index.js';
import { literalMatcher, regexMatcher } from '../../src/retrieve/line-matcher.js';
import { rootSpecs, validateRoots, type Root } from '../../src/retrieve/roots.js';
import { findFiles, searchRoots, type SearchOptions } from '../../src/retrieve/search.js';
import { queryTerms, smartSearch } from '../../src/retrieve/smart-search.js';
import { requiredTrigrams } from '../../src/retrieve/trigrams.js';
import { tempDir } from '../helpers/cli.js';

let base: string;
let roots: Root[];
let index: FileIndexes;
let clock = Date.now() - 3600_000;

/** Sets every file and folder time an hour back (a distinct second each), so the index may trust them. */
function age(path = base): void {
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) age(join(path, entry.name));
    else utimesSync(join(path, entry.name), new Date(clock), new Date((clock += 1000)));
  }
  utimesSync(path, new Date(clock), new Date((clock += 1000)));
}

function write(rel: string, content: string | Buffer): void {
  mkdirSync(join(base, rel, '..'), { recursive: true });
  writeFileSync(join(base, rel), content);
}

const literal = (q: string): Pick<SearchOptions, 'matcher' | 'trigrams'> => ({ matcher: literalMatcher(Buffer.from(q)), trigrams: requiredTrigrams(Buffer.from(q), false) });

/** The same search with and without the index: they must always agree. */
function both(query: Pick<SearchOptions, 'matcher' | 'trigrams'>) {
  const options = { ...query, limit: 1000, context: 1, maxFileBytes: 4096, hidden: false };
  const fresh = searchRoots(roots, options);
  const cached = searchRoots(roots, { ...options, index });
  expect(cached).toEqual(fresh);
  return cached;
}

const paths = (out: ReturnType<typeof both>) => out.matches.map((m) => `${m.path}:${m.line}`);

beforeEach(() => {
  base = tempDir('mcpkit-index-');
  write('code/.gitignore', 'dist/\n');
  write('code/src/a.ts', 'const needle = 1;\n');
  write('code/src/b.ts', 'nothing here\n');
  write('code/dist/out.js', 'needle built\n');
  write('code/bin.dat', Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1])]));
  write('docs/guide.md', 'the needle in the docs\n');
  age();
  roots = validateRoots(rootSpecs({ configured: { docs: join(base, 'docs'), code: join(base, 'code') }, configDir: base, env: {}, cwd: base }));
  index = new FileIndexes();
});

describe('the serve file index', () => {
  it('gives the same results as a fresh walk, and sees every kind of change', () => {
    expect(paths(both(literal('needle')))).toEqual(['docs/guide.md:1', 'code/src/a.ts:1']);
    expect(paths(both(literal('needle')))).toEqual(['docs/guide.md:1', 'code/src/a.ts:1']); // from the index

    write('code/src/b.ts', 'now a needle too\n'); // content changed (new size and mtime)
    age();
    expect(paths(both(literal('needle')))).toEqual(['docs/guide.md:1', 'code/src/a.ts:1', 'code/src/b.ts:1']);

    write('code/src/c.ts', 'x\nneedle\n'); // a new file
    rmSync(join(base, 'code/src/a.ts')); // a deleted one
    age();
    expect(paths(both(literal('needle')))).toEqual(['docs/guide.md:1', 'code/src/b.ts:1', 'code/src/c.ts:2']);

    write('code/.gitignore', 'src/c.ts\n'); // rules changed: dist/ back, c.ts out
    age();
    expect(paths(both(literal('needle')))).toEqual(['docs/guide.md:1', 'code/dist/out.js:1', 'code/src/b.ts:1']);

    write('code/src/.gitignore', 'b.ts\n'); // a new nested rule file
    age();
    expect(paths(both(literal('needle')))).toEqual(['docs/guide.md:1', 'code/dist/out.js:1']);

    write('code/bin.dat', 'needle, text at last\n'); // binary became text
    age();
    expect(paths(both(literal('needle')))).toEqual(['docs/guide.md:1', 'code/bin.dat:1', 'code/dist/out.js:1']);

    write('code/dist/out.js', `needle\n${'x'.repeat(5000)}\n`); // now over max_file_bytes
    age();
    expect(both(literal('needle')).skipped.too_large).toBe(1);
  });

  it('sees changes made a moment ago (times too fresh to trust are checked again)', () => {
    both(literal('needle'));
    write('code/src/b.ts', 'needle!\n'); // same second as the index's last look: mtime alone cannot tell
    expect(paths(both(literal('needle')))).toContain('code/src/b.ts:1');
    // Same size and, as file times are coarse, possibly the same mtime: forced here to be sure.
    const recent = new Date(Date.now() - RACY_MS / 4);
    utimesSync(join(base, 'code/src/b.ts'), recent, recent);
    both(literal('needle'));
    write('code/src/b.ts', 'needle?\n');
    utimesSync(join(base, 'code/src/b.ts'), recent, recent);
    expect(both(literal('needle?')).matches.map((m) => m.text)).toEqual(['needle?']);
    write('code/src/new.ts', 'needle new\n');
    expect(paths(both(literal('needle')))).toContain('code/src/new.ts:1');
  });

  it('does not read again a file whose size, mtime and inode are unchanged and whose filter rules it out', async () => {
    both(literal('needle'));
    await index.settled(); // the trigram filters are built in the background
    const path = join(base, 'code/src/b.ts');
    const { mtime } = statSync(path);
    writeFileSync(path, 'needle here!\n'); // same size as 'nothing here\n', written in place
    utimesSync(path, mtime, mtime);
    const options = { ...literal('needle'), limit: 1000, context: 0, maxFileBytes: 4096, hidden: false };
    // Like git's index, identical size/mtime/inode is trusted: the filter from the first read decides.
    expect(searchRoots(roots, { ...options, index }).matches.map((m) => m.path)).not.toContain('code/src/b.ts');
    expect(searchRoots(roots, options).matches.map((m) => m.path)).toContain('code/src/b.ts');
  });

  it('builds trigram filters in the background, and only for content it can vouch for', async () => {
    both(literal('needle'));
    const entries = () => index.of(roots[1]!, false).list();
    expect(entries().every((e) => e.trigrams === undefined)).toBe(true);
    await index.settled();
    const byPath = Object.fromEntries(entries().map((e) => [e.rel, e]));
    expect(byPath['src/a.ts']!.trigrams).toBeInstanceOf(Uint32Array);
    expect(byPath['bin.dat']!.trigrams).toBeUndefined(); // binary
    write('code/src/b.ts', 'changed just now\n');
    both(literal('needle'));
    await index.settled();
    expect(index.of(roots[1]!, false).list().find((e) => e.rel === 'src/b.ts')!.trigrams).toBeUndefined(); // too fresh to trust
  });

  it('agrees with a fresh walk for regex, find and smart search', () => {
    both({ matcher: regexMatcher(/nee+dle/u, Buffer.from('dle')), trigrams: requiredTrigrams(Buffer.from('dle'), false) });
    both({ matcher: regexMatcher(/NEEDLE/iu, undefined, { asciiLiteral: 'NEEDLE' }), trigrams: requiredTrigrams(Buffer.from('NEEDLE'), true) });
    const ts = (rel: string) => rel.endsWith('.ts');
    expect(findFiles(roots, ts, { limit: 100, hidden: false, index })).toEqual(findFiles(roots, ts, { limit: 100, hidden: false }));
    const terms = queryTerms('where is the needle in the docs');
    const options = { maxFileBytes: 4096, limit: 10, linesPerFile: 3 };
    expect(smartSearch(roots, terms, { ...options, index })).toEqual(smartSearch(roots, terms, options));
    expect(smartSearch(roots, terms, { ...options, index })).toEqual(smartSearch(roots, terms, options));
  });

  it('keeps separate lists with and without dotfiles', () => {
    write('code/.env', 'needle=secret\n');
    age();
    const options = { ...literal('needle'), limit: 1000, context: 0, maxFileBytes: 4096, index };
    expect(searchRoots(roots, { ...options, hidden: false }).matches.map((m) => m.path)).not.toContain('code/.env');
    expect(searchRoots(roots, { ...options, hidden: true }).matches.map((m) => m.path)).toContain('code/.env');
  });

});
