import { parentPort, workerData } from 'node:worker_threads';
import { ToolError } from '../core/errors.js';
import { linearEngine, withinBudget } from './patterns/bounded.js';
import { compileGlob } from './patterns/glob.js';
import { compilePathRules } from './patterns/path-rules.js';
import type { LineShape } from './patterns/match-shape.js';
import { compileQuery } from './patterns/query.js';
import { relOf } from './file-search.js';
import { searchListed } from './search.js';
import { chunkOptions, searchChunk, takeWalkedChunk } from './search-chunks.js';
import type { WorkerJob, WorkerMessage } from './worker-search.js';
import type { ChunkJob } from './search-chunks.js';

/**
 * Work whose time has no bound, in a worker thread (worker-search.ts starts it, bundled as
 * dist/retrieve/search-worker.cjs, one file of its own: scripts/build.mjs): a search with a backtracking regular expression, or the
 * matching of a backtracking glob, with the same code as on the main thread. Its thread may be
 * stopped at any moment; it holds nothing that needs closing.
 */
const job = workerData as WorkerJob | ChunkJob;
linearEngine(); // as on the main thread: an expression that can move to the linear engine does
const post = (message: WorkerMessage) => parentPort!.postMessage(message);
try {
  if (job.kind === 'chunks') {
    const options = chunkOptions(job);
    const state = new Int32Array(job.counter);
    const files = job.files;
    for (let at = takeWalkedChunk(job, state, files); at !== undefined; at = takeWalkedChunk(job, state, files)) {
      parentPort!.postMessage({ chunk: at, part: searchChunk(files, at, job.chunkFiles, options) });
    }
    parentPort!.postMessage({ end: true });
  } else if (job.kind === 'glob') {
    const include = job.rules ? compilePathRules(job.rules)! : compileGlob(job.glob, job.hidden)!;
    post({ done: withinBudget(Number.POSITIVE_INFINITY, 'Matching the glob', () => job.paths.filter(include)) });
  } else {
    const { matcher, parts } = compileQuery(job.query);
    const { onlyMatching, ...given } = job.shape ?? { onlyMatching: false };
    const shape = job.shape && { ...(given as Omit<LineShape, 'parts'>), ...(onlyMatching ? { parts } : {}) };
    const include = job.rules && compilePathRules(job.rules);
    const outcome = withinBudget(Number.POSITIVE_INFINITY, 'The search', () =>
      searchListed(
        include ? job.files.filter((file) => include(relOf(file))) : job.files,
        {
          matcher,
          limit: job.limit,
          context: job.context,
          ...(shape ? { shape } : {}),
          ...(job.report ? { report: job.report } : {}),
          ...(job.stream ? { onMatch: (match) => post({ match }) } : {}),
        },
        job.skipped,
      ),
    );
    post({ done: job.stream ? { ...outcome, matches: [] } : outcome });
  }
} catch (error) {
  post({
    failed:
      error instanceof ToolError
        ? { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}), ...(error.hint ? { hint: error.hint } : {}) }
        : { message: (error as Error).message ?? String(error) },
  });
}
