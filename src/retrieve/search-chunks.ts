import type { LineShape } from './patterns/match-shape.js';
import { compileQuery, type SearchQuery } from './patterns/query.js';
import { noneLeftOut, searchListed, type ListedFile, type SearchOutcome, type SearchReport } from './search.js';

/**
 * A walked list of files searched in chunks by every thread at once (parallel-search.ts): each
 * thread takes the next chunk from one shared counter, so a thread that started late or met big
 * files takes fewer, and each chunk's outcome is what the one-thread search gives for its files.
 */
export interface ChunkJob {
  kind: 'chunks';
  query: SearchQuery;
  files: ListedFile[];
  /** One Int32: the next chunk to take. */
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
}

/** The options a thread searches its chunks with, compiled from the job (a worker's own matcher). */
export function chunkOptions(job: ChunkJob): ChunkOptions {
  const { matcher, parts } = compileQuery(job.query);
  const { onlyMatching, ...shape } = job.shape;
  return { matcher, shape: { ...shape, ...(onlyMatching ? { parts } : {}) }, report: job.report };
}

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
  return searchListed(slice, { ...options, limit: Number.POSITIVE_INFINITY }, noneLeftOut());
}
