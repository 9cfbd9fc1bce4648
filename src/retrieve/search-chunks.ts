import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { LineShape } from './patterns/match-shape.js';
import type { ReadHolder } from './read-into.js';
import { compileQuery, type SearchQuery } from './patterns/query.js';
import { noneLeftOut, searchListed, type ListedFile, type SearchOutcome, type SearchReport } from './search.js';

/**
 * A list of files searched in chunks by every thread at once (parallel-search.ts), while it is
 * still being walked: each thread takes the next chunk from one shared counter, so a thread that
 * started late or met big files takes fewer, and each chunk's outcome is what the one-thread
 * search gives for its files. The walking thread sends the worker each chunk's files as the walk
 * completes it, then says how many chunks there are (ChunkState).
 */
export interface ChunkJob {
  kind: 'chunks';
  query: SearchQuery;
  /** The files walked before the worker started; the rest come through `more`, in walk order. */
  files: ListedFile[];
  /** The walk's files after `files`, a batch per message, as packFiles writes them. */
  more: MessagePort;
  /** The roots the batches name by index: their names and paths (with a final `/`). */
  roots: { name: string; prefix: string }[];
  /** Int32s at the ChunkState indexes. */
  counter: SharedArrayBuffer;
  chunkFiles: number;
  /** rg's -B/-A and -m; -o's parts are taken from the query here. */
  shape: Omit<LineShape, 'parts'> & { onlyMatching: boolean };
  report: SearchReport;
}

export interface ChunkOptions {
  matcher: Parameters<typeof searchListed>[1]['matcher'];
  shape: LineShape;
  report: SearchReport;
  /**
   * The thread's one read buffer for all its chunks: a buffer per chunk, grown again for each
   * chunk's large files, made most of a cold search's garbage (0.65 s of collection on /usr/share).
   */
  holder: ReadHolder;
}

/** The options a thread searches its chunks with, compiled from the job (a worker's own matcher). */
export function chunkOptions(job: Pick<ChunkJob, 'query' | 'shape' | 'report'>): ChunkOptions {
  const { matcher, parts } = compileQuery(job.query);
  const { onlyMatching, ...shape } = job.shape;
  return { matcher, shape: { ...shape, ...(onlyMatching ? { parts } : {}) }, report: job.report, holder: { buffer: Buffer.allocUnsafe(64 * 1024) } };
}

/** What the threads share (Int32 indexes of ChunkJob.counter). */
export const ChunkState = {
  /** The next chunk to take. */
  next: 0,
  /** How many chunks have their files sent (complete ones while the walk goes on, all at its end). */
  published: 1,
  /** 1 once the walk is over; `published` is then the final count and `total` the files walked. */
  walked: 2,
  total: 3,
} as const;
export const CHUNK_STATE_BYTES = 16;

/** How many chunks a list of files makes. */
export const chunkCount = (files: number, chunkFiles: number) => Math.ceil(files / chunkFiles);

/** Takes the next chunk, or undefined when none is left. */
export function nextChunk(counter: Int32Array, chunks: number): number | undefined {
  const at = Atomics.add(counter, 0, 1);
  return at < chunks ? at : undefined;
}

/** One chunk's files, searched as the one-thread search would search them (no limit: every match). */
export function searchChunk(files: readonly ListedFile[], at: number, chunkFiles: number, options: ChunkOptions): SearchOutcome {
  const slice = files.slice(at * chunkFiles, (at + 1) * chunkFiles);
  const { holder, ...rest } = options;
  return searchListed(slice, { ...rest, limit: Number.POSITIVE_INFINITY }, noneLeftOut(), holder);
}

/**
 * The worker's next chunk of a walk in progress: it takes a number from the counter, waits until
 * the walking thread has sent that chunk's files (or the walk ended before making it: undefined),
 * and adds what came through `more` to `files`.
 */
export function takeWalkedChunk(job: ChunkJob, state: Int32Array, files: ListedFile[]): number | undefined {
  const at = Atomics.add(state, ChunkState.next, 1);
  for (;;) {
    const published = Atomics.load(state, ChunkState.published);
    if (at < published) break;
    if (Atomics.load(state, ChunkState.walked) === 1) return undefined;
    Atomics.wait(state, ChunkState.published, published, 100);
  }
  const walked = Atomics.load(state, ChunkState.walked) === 1;
  const needed = walked ? Math.min((at + 1) * job.chunkFiles, Atomics.load(state, ChunkState.total)) : (at + 1) * job.chunkFiles;
  while (files.length < needed) {
    const batch = receiveMessageOnPort(job.more)?.message as string | undefined;
    // Sent before it was published: here at once, or about to be.
    if (batch !== undefined) unpackFiles(batch, job.roots, files);
    else Atomics.wait(state, ChunkState.published, Atomics.load(state, ChunkState.published), 1);
  }
  return at;
}

/**
 * Walked files as one string, which crosses to a worker as one copy (cloning the file objects
 * themselves cost the walking thread ~10% of a walk): each file is its root's index, `/`, and its
 * path inside the root, and a NUL (which no file name holds) ends it.
 */
export function packFile(rootIndex: number, rel: string): string {
  return `${rootIndex}/${rel}\0`;
}

/** The files of a packed batch, added to `into` in order. */
export function unpackFiles(batch: string, roots: readonly { name: string; prefix: string }[], into: ListedFile[]): void {
  let from = 0;
  for (let end = batch.indexOf('\0'); end >= 0; from = end + 1, end = batch.indexOf('\0', from)) {
    const slash = batch.indexOf('/', from);
    const root = roots[Number(batch.slice(from, slash))]!;
    const rel = batch.slice(slash + 1, end);
    into.push({ abs: root.prefix + rel, repo: root.name, path: `${root.name}/${rel}` });
  }
}
