import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { packageRoot } from '../core/version.js';
import { workerThreads } from '../core/lazy-builtins.js';
import { overBudget, withinBudget } from './patterns/bounded.js';
import type { LineShape } from './patterns/match-shape.js';
import type { SearchQuery } from './patterns/query.js';
import type { Root } from './roots.js';
import { CHUNK_STATE_BYTES, ChunkState, chunkCount, chunkOptions, nextChunk, packFile, searchChunk, type ChunkJob } from './search-chunks.js';
import { eachFile, noneLeftOut, type ListedFile, type SearchMatch, type SearchOutcome, type SearchReport } from './search.js';

/**
 * A one-shot search with no limit (the terminal's --limit 0, what rg does) on both cores: this
 * thread walks while a worker searches the chunks the walk has completed (search-chunks.ts), then
 * both search what is left, and the chunks' outcomes are put together in walk order, so what is
 * printed and returned is byte for byte what the one-thread search gives. The walk was most of a
 * cold search on babel (1.1 of 2.1 s, the search after it the rest): now the search hides behind
 * it. A worker that fails leaves its chunks to this thread. Below MIN_FILES files, or on one
 * core, one thread walks, then searches.
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
  /** Told after each file the walk lists, with what it shares with the worker (ChunkState); tests hold the walk there. */
  walking?: (state: Int32Array) => void;
}

const MIN_FILES = 2_000;
const CHUNK_FILES = 128;

export async function searchOnAllCores(roots: readonly Root[], asked: ParallelSearch): Promise<SearchOutcome> {
  const deadline = Date.now() + asked.timeoutMs;
  const chunkFiles = asked.chunkFiles ?? CHUNK_FILES;
  const left = () => Math.max(1, deadline - Date.now());
  const done: (SearchOutcome | undefined)[] = [];
  let chunks = 0;
  let next = 0;
  // Each chunk's outcome joins the whole once every chunk before it has (none before the walk ends: this thread is walking).
  const flush = () => {
    for (; next < chunks && done[next]; next++) {
      addChunk(outcome, done[next]!, asked.onMatch);
      done[next] = undefined;
    }
  };
  const sharing: Sharing = {};
  let walk;
  try {
    walk = withinBudget(asked.timeoutMs, 'The search', () =>
      walkSharing(roots, asked, chunkFiles, sharing, (at, part) => {
        done[at] = part;
        asked.workerSearched?.();
        flush();
      }),
    );
  } catch (error) {
    // Stopped mid-walk (its budget): a worker waiting for chunks would keep the process alive.
    await sharing.worker?.stop();
    throw error;
  }
  const { files, skipped, state, worker } = walk;
  chunks = chunkCount(files.length, chunkFiles);
  const outcome: SearchOutcome = {
    matches: [],
    ...(asked.report === 'counts' ? { counts: [] } : {}),
    truncated: false,
    files_searched: 0,
    skipped: { binary: 0, ...skipped },
  };
  flush();
  const options = chunkOptions({ query: asked.query, shape: asked.shape, report: asked.report });
  if (worker) await asked.mainAfter;
  for (let at = nextChunk(state, chunks); at !== undefined; at = nextChunk(state, chunks)) {
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

/**
 * The walk, on this thread: once it has `minFiles` files (and there is a second core) a worker
 * starts with them, and each chunk the walk completes after that is sent to it and published in
 * the shared state, so the worker searches while this thread walks. At the end the state says
 * how many files and chunks there are.
 */
function walkSharing(roots: readonly Root[], asked: ParallelSearch, chunkFiles: number, sharing: Sharing, onPart: (at: number, part: SearchOutcome) => void) {
  const state = new Int32Array(new SharedArrayBuffer(CHUNK_STATE_BYTES));
  const files: ListedFile[] = [];
  const skipped = noneLeftOut();
  const startAt = availableParallelism() > 1 ? (asked.minFiles ?? MIN_FILES) : Number.POSITIVE_INFINITY;
  let worker: ReturnType<typeof startWorker> | undefined;
  // Files walked since the worker started and not yet sent to it, packed (search-chunks.ts packFile).
  let unsent: string[] = [];
  const send = () => {
    if (unsent.length) worker!.more.postMessage(unsent.join(''));
    unsent = [];
  };
  const walked = (file: ListedFile, rootIndex: number, rel: string) => {
    files.push(file);
    if (worker) {
      unsent.push(packFile(rootIndex, rel));
      if (files.length % chunkFiles !== 0) return;
      send();
    } else if (files.length >= startAt) {
      const job = { kind: 'chunks' as const, query: asked.query, files: [...files], counter: state.buffer as SharedArrayBuffer, chunkFiles };
      const prefixes = roots.map((root) => ({ name: root.name, prefix: root.path.endsWith('/') ? root.path : `${root.path}/` }));
      worker = sharing.worker = startWorker({ ...job, roots: prefixes, shape: asked.shape, report: asked.report }, onPart);
    } else return;
    // Sent before published: the worker finds a published chunk's files waiting.
    Atomics.store(state, ChunkState.published, Math.floor(files.length / chunkFiles));
    Atomics.notify(state, ChunkState.published);
  };
  roots.forEach((root, rootIndex) => {
    eachFile(
      root,
      asked.hidden,
      undefined,
      (rel, abs) => {
        if (!asked.include || asked.include(rel)) walked({ abs, repo: root.name, path: `${root.name}/${rel}` }, rootIndex, rel);
        asked.walking?.(state);
        return true;
      },
      skipped,
    );
  });
  if (worker) send();
  // The count and the end are known before the last chunk is published: a worker that sees it sees them.
  Atomics.store(state, ChunkState.total, files.length);
  Atomics.store(state, ChunkState.walked, 1);
  Atomics.store(state, ChunkState.published, chunkCount(files.length, chunkFiles));
  Atomics.notify(state, ChunkState.published);
  return { files, skipped, state, worker };
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

/** Where the walk leaves the worker it started, for the caller to stop should the walk fail. */
interface Sharing {
  worker?: ReturnType<typeof startWorker>;
}

/** The worker of a chunked search: each chunk it finishes is handed to `chunk`; `finished` waits for it to take no more. */
function startWorker(job: Omit<ChunkJob, 'more'>, chunk: (at: number, part: SearchOutcome) => void) {
  const { MessageChannel, Worker } = workerThreads();
  const { port1: more, port2 } = new MessageChannel();
  const worker = new Worker(join(packageRoot(), 'dist', 'retrieve', 'search-worker.cjs'), { workerData: { ...job, more: port2 }, transferList: [port2] });
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
    more,
    async stop(): Promise<void> {
      await worker.terminate();
      more.close();
    },
    async finished(ms: number, budgetMs: number, signal?: AbortSignal): Promise<void> {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => Number.isFinite(ms) && (timer = setTimeout(() => resolve('late'), ms)));
      const aborted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
      const how = await Promise.race([ended, late, aborted]);
      clearTimeout(timer);
      await worker.terminate();
      more.close();
      if (how === 'late') throw overBudget(budgetMs, 'The search');
    },
  };
}
