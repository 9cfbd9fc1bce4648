import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '../core/version.js';
import { overBudget, withinBudget } from './patterns/bounded.js';
import type { LineShape } from './patterns/match-shape.js';
import type { SearchQuery } from './patterns/query.js';
import type { Root } from './roots.js';
import { chunkCount, chunkOptions, nextChunk, searchChunk, type ChunkJob } from './search-chunks.js';
import { listFiles, type SearchMatch, type SearchOutcome, type SearchReport } from './search.js';

/**
 * A one-shot search with no limit (the terminal's --limit 0, what rg does) on both cores: this
 * thread walks, then it and a worker search the walked files in chunks (search-chunks.ts), and
 * the chunks' outcomes are put together in walk order as they complete, so what is printed and
 * returned is byte for byte what the one-thread search gives. A worker that fails leaves its
 * chunks to this thread. Below MIN_FILES files, or on one core, one thread searches.
 */
export interface ParallelSearch {
  query: SearchQuery;
  /** Compiled here from `query` too (this thread's half). */
  shape: Omit<LineShape, 'parts'> & { onlyMatching: boolean };
  report: SearchReport;
  hidden: boolean;
  include?: (rel: string) => boolean;
  onMatch?: (match: SearchMatch) => void;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Fewest files worth a worker's start (~30-50 ms); tests set 0. */
  minFiles?: number;
  /** Files a chunk holds (default 128); tests make chunks small, to have many. */
  chunkFiles?: number;
  /** Told of each chunk the worker hands over; tests hold this thread (`mainAfter`) until the worker has searched one. */
  workerSearched?: () => void;
  mainAfter?: Promise<void>;
}

const MIN_FILES = 2_000;
const CHUNK_FILES = 128;

export async function searchOnAllCores(roots: readonly Root[], asked: ParallelSearch): Promise<SearchOutcome> {
  const deadline = Date.now() + asked.timeoutMs;
  const chunkFiles = asked.chunkFiles ?? CHUNK_FILES;
  const left = () => Math.max(1, deadline - Date.now());
  const { files, skipped } = withinBudget(asked.timeoutMs, 'The search', () =>
    listFiles(roots, { hidden: asked.hidden, ...(asked.include ? { include: asked.include } : {}) }),
  );
  const job: ChunkJob = {
    kind: 'chunks',
    query: asked.query,
    files,
    counter: new SharedArrayBuffer(4),
    chunkFiles,
    shape: asked.shape,
    report: asked.report,
  };
  const chunks = chunkCount(files.length, chunkFiles);
  const outcome: SearchOutcome = {
    matches: [],
    ...(asked.report === 'counts' ? { counts: [] } : {}),
    truncated: false,
    files_searched: 0,
    skipped: { binary: 0, ...skipped },
  };
  const done: (SearchOutcome | undefined)[] = new Array<SearchOutcome | undefined>(chunks);
  let next = 0;
  // Each chunk's outcome joins the whole once every chunk before it has.
  const flush = () => {
    for (; next < chunks && done[next]; next++) {
      addChunk(outcome, done[next]!, asked.onMatch);
      done[next] = undefined;
    }
  };
  const worker =
    files.length >= (asked.minFiles ?? MIN_FILES) && availableParallelism() > 1
      ? startWorker(job, (at, part) => {
          done[at] = part;
          asked.workerSearched?.();
          flush();
        })
      : undefined;
  const options = chunkOptions(job);
  if (worker) await asked.mainAfter;
  const counter = new Int32Array(job.counter);
  for (let at = nextChunk(counter, chunks); at !== undefined; at = nextChunk(counter, chunks)) {
    done[at] = withinBudget(left(), 'The search', () => searchChunk(files, at, chunkFiles, options));
    flush();
    if (asked.signal?.aborted) break;
    // The worker's chunks come in between this thread's.
    if (worker) await turn();
  }
  if (worker) await worker.finished(left(), asked.timeoutMs, asked.signal);
  if (asked.signal?.aborted) throw asked.signal.reason;
  // What a failed worker took and did not finish is searched here.
  for (let at = next; at < chunks; at++) {
    if (!done[at]) done[at] = withinBudget(left(), 'The search', () => searchChunk(files, at, chunkFiles, options));
    flush();
  }
  return outcome;
}

/** One chunk's outcome added to the whole, as the one-thread search tallies a file (search.ts tally, with no limit). */
export function addChunk(outcome: SearchOutcome, part: SearchOutcome, onMatch?: (match: SearchMatch) => void): void {
  for (const match of part.matches) {
    outcome.matches.push(match);
    onMatch?.(match);
  }
  if (outcome.counts && part.counts) outcome.counts.push(...part.counts);
  outcome.files_searched += part.files_searched;
  outcome.skipped.binary += part.skipped.binary;
}

/** The worker of a chunked search: each chunk it finishes is handed to `chunk`; `finished` waits for it to take no more. */
function startWorker(job: ChunkJob, chunk: (at: number, part: SearchOutcome) => void) {
  const worker = new Worker(join(packageRoot(), 'dist', 'retrieve', 'search-worker.js'), { workerData: job });
  const ended = new Promise<void>((resolve) => {
    worker.on('message', (message: { chunk?: number; part?: SearchOutcome; end?: true }) => {
      if (message.chunk !== undefined && message.part) chunk(message.chunk, message.part);
      if (message.end) resolve();
    });
    // Done, failed or stopped: whatever it did not hand over is searched by the main thread.
    worker.on('exit', () => resolve());
    worker.on('error', () => resolve());
  });
  return {
    async finished(ms: number, budgetMs: number, signal?: AbortSignal): Promise<void> {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => Number.isFinite(ms) && (timer = setTimeout(() => resolve('late'), ms)));
      const aborted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
      const how = await Promise.race([ended, late, aborted]);
      clearTimeout(timer);
      await worker.terminate();
      if (how === 'late') throw overBudget(budgetMs, 'The search');
    },
  };
}
