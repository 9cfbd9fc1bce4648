import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileIndexes, RACY_MS } from '../../src/retrieve/file-index.js';
import { literalMatcher, regexMatcher } from '../../src/retrieve/patterns/line-matcher.js';
import { rootSpecs, validateRoots, type Root } from '../../src/retrieve/roots.js';
import { BLOCK_BYTES, findFiles, searchRoots, type SearchOptions } from '../../src/retrieve/search.js';
import { queryTerms, smartSearch } from '../../src/retrieve/smart-search.js';
import { requiredTrigrams } from '../../src/retrieve/patterns/trigrams.js';
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

const literal = (q: string): Pick<SearchOptions, 'matcher' | 'trigrams'> => ({
  matcher: literalMatcher(Buffer.from(q)),
  trigrams: requiredTrigrams(Buffer.from(q), false),
});

/** The same search with and without the index: they must always agree. */
function both(query: Pick<SearchOptions, 'matcher' | 'trigrams'>) {
  const options = { ...query, limit: 1000, context: 1, hidden: false };
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
  roots = validateRoots(rootSpecs({ configured: { docs: join(base, 'docs'), code: join(base, 'code') }, configDir: base, env: {}, cwd: base, implicit: base }));
  // No text cache and no watcher: these tests are about the stat checks and trigram filters.
  index = new FileIndexes({ cacheBytes: 0 });
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

    write('code/dist/out.js', `needle\n${'x'.repeat(5000)}\nneedle\n`); // grown: still searched, to the end
    age();
    expect(paths(both(literal('needle')))).toContain('code/dist/out.js:3');
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
    const options = { ...literal('needle'), limit: 1000, context: 0, hidden: false };
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
    expect(
      index
        .of(roots[1]!, false)
        .list()
        .find((e) => e.rel === 'src/b.ts')!.trigrams,
    ).toBeUndefined(); // too fresh to trust
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
    const options = { ...literal('needle'), limit: 1000, context: 0, index };
    expect(searchRoots(roots, { ...options, hidden: false }).matches.map((m) => m.path)).not.toContain('code/.env');
    expect(searchRoots(roots, { ...options, hidden: true }).matches.map((m) => m.path)).toContain('code/.env');
  });
});

describe('the serve file index, watching', () => {
  let watching: FileIndexes;
  beforeEach(() => {
    watching = new FileIndexes({ watch: true });
  });
  afterEach(() => watching.close());

  const search = async (q: string) => {
    await watching.caughtUp();
    const options = { ...literal(q), limit: 1000, context: 0, hidden: false };
    const out = searchRoots(roots, { ...options, index: watching });
    expect(out).toEqual(searchRoots(roots, options)); // always what a fresh walk finds
    return out;
  };

  it('keeps text in memory and learns of every kind of change from the watcher, with no stat', async () => {
    await search('needle');
    await watching.settled(); // watches set up, text copied into the cache
    const code = watching.of(roots[1]!, false);
    await search('needle'); // the first search with every watch in place checks by stat once
    expect(code.mode.mode).toBe('watching');
    expect(
      code
        .list()
        .find((e) => e.rel === 'src/a.ts')!
        .content?.toString(),
    ).toBe('const needle = 1;\n');
    expect(watching.memory().text_bytes).toBeGreaterThan(0);

    // Same size, same mtime, same inode: invisible to a stat, heard by the watcher.
    const path = join(base, 'code/src/b.ts');
    const { mtime } = statSync(path);
    writeFileSync(path, 'needle here!\n');
    utimesSync(path, mtime, mtime);
    expect(paths(await search('needle'))).toContain('code/src/b.ts:1');

    write('code/src/new.ts', 'a new needle\n');
    expect(paths(await search('needle'))).toContain('code/src/new.ts:1');
    rmSync(join(base, 'code/src/a.ts'));
    expect(paths(await search('needle'))).not.toContain('code/src/a.ts:1');
    write('code/.gitignore', 'src/new.ts\n'); // dist/ back in, new.ts out
    const out = paths(await search('needle'));
    expect(out).toContain('code/dist/out.js:1');
    expect(out).not.toContain('code/src/new.ts:1');
    write('code/src/deeper/more.ts', 'needle in a new folder\n');
    expect(paths(await search('needle'))).toContain('code/src/deeper/more.ts:1');
    await watching.settled(); // the new folder is watched too
    write('code/src/deeper/more.ts', 'needle changed in the new folder\n');
    expect((await search('needle')).matches.map((m) => m.text)).toContain('needle changed in the new folder');
  });

  it('without a watcher (or before it is set up) it stats instead, and a stale copy is never shown', async () => {
    const statOnly = new FileIndexes();
    const options = { ...literal('needle'), limit: 1000, context: 0, hidden: false, index: statOnly };
    searchRoots(roots, options);
    await statOnly.settled();
    expect(statOnly.of(roots[1]!, false).mode).toEqual({ mode: 'stat', reason: expect.any(String) });
    write('code/src/a.ts', 'const changed = 1;\n');
    expect(searchRoots(roots, options).matches.map((m) => m.path)).not.toContain('code/src/a.ts');
  });
});

describe('scanFile', () => {
  it('searches a file larger than a block to its end, with line numbers across blocks', () => {
    const line = `${'x'.repeat(999)}\n`;
    const lines = Math.ceil((BLOCK_BYTES * 2.5) / line.length);
    const body = Buffer.alloc(lines * line.length, line);
    const at = [1, Math.floor(lines / 2), lines - 1]; // 0-based lines that get a needle
    for (const n of at) body.write('needle', n * line.length);
    write('code/huge.txt', body);
    const out = searchRoots([roots[1]!], { ...literal('needle'), limit: 1000, context: 1, hidden: false, include: (rel) => rel === 'huge.txt' });
    expect(out.matches.map((m) => m.line)).toEqual(at.map((n) => n + 1));
    expect(out.matches[0]!.text).toHaveLength(300); // a long line is cut in what is shown
    expect(out.matches[1]!.before).toHaveLength(1);
  });

  it('a NUL byte anywhere makes a file binary (as ripgrep), even after matches in an earlier block', () => {
    const body = Buffer.alloc(BLOCK_BYTES + 4096, 'a\n');
    body.write('needle\n', 0);
    body[body.length - 10] = 0;
    write('code/late-nul.txt', body);
    write('code/line-longer-than-a-block.txt', `${'y'.repeat(BLOCK_BYTES + 10)}needle\n`);
    const out = searchRoots([roots[1]!], { ...literal('needle'), limit: 1000, context: 0, hidden: false });
    expect(out.matches.map((m) => m.path)).not.toContain('code/late-nul.txt');
    expect(out.matches.map((m) => m.path)).toContain('code/line-longer-than-a-block.txt');
    expect(out.skipped.binary).toBe(2); // bin.dat and late-nul.txt
  });
});
