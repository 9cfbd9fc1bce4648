import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { WHOLE_LINES } from '../../src/retrieve/patterns/match-shape.js';
import { searchOnAllCores } from '../../src/retrieve/parallel-search.js';
import { ChunkState } from '../../src/retrieve/search-chunks.js';
import { compileQuery, type SearchQuery } from '../../src/retrieve/patterns/query.js';
import { rootSpecs, validateRoots, type Root } from '../../src/retrieve/roots.js';
import { searchRoots, type SearchMatch, type SearchReport } from '../../src/retrieve/search.js';
import { tempDir } from '../helpers/cli.js';

/**
 * A search for every match on all cores (this thread and a worker taking chunks of the walked
 * files from one counter) gives what the one-thread search gives, in the same order, for every
 * report and line shape: on a tree of many chunks (of 4 files here; the worker searches the first), with binary
 * files, files without a final newline, overlapping context and ignored files. `minFiles: 0` makes
 * the worker start on this small tree. The worker is the built one (npm run build).
 */
let roots: Root[];

beforeAll(() => {
  const base = tempDir('mcpkit-parallel-');
  const put = (rel: string, text: string | Buffer) => {
    mkdirSync(join(base, rel, '..'), { recursive: true });
    writeFileSync(join(base, rel), text);
  };
  put('.gitignore', 'ignored/\n');
  put('ignored/x.txt', 'foo ignored\n');
  for (let i = 0; i < 600; i++) {
    const dir = `d${String(i % 7)}/s${String(i % 5)}`;
    const lines = [`line ${i}`, i % 3 ? 'foo here' : 'bar there', 'FOO upper', i % 4 ? 'x' : 'foo foo foo', `last ${i}`];
    put(`${dir}/f${i}.txt`, i % 11 ? `${lines.join('\n')}\n` : lines.join('\n')); // some without a final newline
    if (i % 50 === 0) put(`${dir}/b${i}.bin`, Buffer.concat([Buffer.from('foo'), Buffer.from([0, 1])]));
  }
  roots = validateRoots(rootSpecs({ configured: { code: base }, configDir: base, env: {}, cwd: base, implicit: base }));
});

const cases: [string, Partial<SearchQuery>, { before?: number; after?: number; maxCount?: number; onlyMatching?: boolean }, SearchReport][] = [
  ['a literal', {}, {}, 'lines'],
  ['-i -w', { ignoreCase: true, word: true }, {}, 'lines'],
  ['-v', { invert: true }, {}, 'lines'],
  ['-C 1', {}, { before: 1, after: 1 }, 'lines'],
  ['-B 2 -A 1 -m 1', {}, { before: 2, after: 1, maxCount: 1 }, 'lines'],
  ['-o', {}, { onlyMatching: true }, 'lines'],
  ['-o a regex', { query: 'fo+|ba.', regex: true }, { onlyMatching: true }, 'lines'],
  ['-l', {}, {}, 'files'],
  ['-c', {}, {}, 'counts'],
  ['-c -o', {}, { onlyMatching: true }, 'counts'],
];

describe('searchOnAllCores gives what one thread gives', () => {
  it.each(cases)('%s', async (_label, q, s, report) => {
    const query: SearchQuery = { query: 'foo', regex: false, ignoreCase: false, ...q };
    const { matcher, parts } = compileQuery(query);
    const onlyMatching = s.onlyMatching === true;
    const shape = { ...WHOLE_LINES, before: s.before ?? 0, after: s.after ?? 0, maxCount: s.maxCount ?? Number.POSITIVE_INFINITY };
    const streamed: SearchMatch[] = [];
    let workerChunks = 0;
    let workerBegan!: () => void;
    const mainAfter = new Promise<void>((resolve) => (workerBegan = resolve));
    const ours = await searchOnAllCores(roots, {
      query,
      shape: { ...shape, onlyMatching },
      report,
      hidden: false,
      timeoutMs: Number.POSITIVE_INFINITY,
      onMatch: (m) => streamed.push(m),
      minFiles: 0,
      chunkFiles: 4,
      mainAfter,
      workerSearched: () => (workerChunks++, workerBegan()),
    });
    expect(workerChunks).toBeGreaterThan(0);
    const one = searchRoots(roots, {
      matcher,
      limit: Number.POSITIVE_INFINITY,
      shape: { ...shape, ...(onlyMatching ? { parts } : {}) },
      report,
      hidden: false,
    });
    expect(ours.matches.length + (ours.counts?.length ?? 0)).toBeGreaterThan(100);
    expect(ours).toEqual(one);
    expect(streamed).toEqual(one.matches); // streamed in walk order too
  });
});

describe('searchOnAllCores searches while it walks', () => {
  it('the worker searches the chunks the walk has completed before the walk ends', async () => {
    const query: SearchQuery = { query: 'foo', regex: false, ignoreCase: false };
    const { matcher } = compileQuery(query);
    let walked = 0;
    let searchedDuringWalk = false;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const ours = await searchOnAllCores(roots, {
      query,
      shape: { ...WHOLE_LINES, onlyMatching: false },
      report: 'lines',
      hidden: false,
      timeoutMs: Number.POSITIVE_INFINITY,
      minFiles: 0,
      chunkFiles: 4,
      // Halfway through the walk, hold it until the worker has taken a second chunk (so it is done
      // with its first): only the worker takes chunks while this thread walks.
      walking: (state) => {
        if (++walked !== 300 || searchedDuringWalk) return;
        const deadline = Date.now() + 60_000;
        while (Atomics.load(state, ChunkState.next) < 2 && Date.now() < deadline) Atomics.wait(pause, 0, 0, 10);
        searchedDuringWalk = Atomics.load(state, ChunkState.next) >= 2;
      },
    });
    expect(walked).toBeGreaterThan(300);
    expect(searchedDuringWalk).toBe(true);
    expect(ours).toEqual(searchRoots(roots, { matcher, limit: Number.POSITIVE_INFINITY, shape: WHOLE_LINES, report: 'lines', hidden: false }));
  });
});

describe('a walk stopped at its budget', () => {
  const threads = () => readdirSync('/proc/self/task').length;
  const search = (extra: { timeoutMs: number; walking?: (state: Int32Array) => void }) =>
    searchOnAllCores(roots, {
      query: { query: 'foo', regex: false, ignoreCase: false },
      shape: { ...WHOLE_LINES, onlyMatching: false },
      report: 'lines',
      hidden: false,
      minFiles: 0,
      chunkFiles: 4,
      ...extra,
    });

  it('is TIMEOUT, and stops the worker it had started (a waiting worker would keep the process alive)', async () => {
    await search({ timeoutMs: Number.POSITIVE_INFINITY }); // whatever threads a worker's first start leaves behind
    const before = threads();
    let walked = 0;
    const late = new Int32Array(new SharedArrayBuffer(4));
    const stopped = search({
      timeoutMs: 500,
      // Past the worker's start, the walk outlives its budget here.
      walking: () => {
        if (++walked === 10) for (const end = Date.now() + 60_000; Date.now() < end;) Atomics.wait(late, 0, 0, 10);
      },
    });
    await expect(stopped).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(walked).toBe(10);
    for (const end = Date.now() + 30_000; threads() > before && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
    expect(threads()).toBeLessThanOrEqual(before);
  });
});
