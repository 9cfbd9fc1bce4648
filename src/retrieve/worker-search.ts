import { processShared } from '../core/process-shared.js';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { ToolError, type ErrorCode } from '../core/errors.js';
import { packageRoot } from '../core/version.js';
import { workerThreads } from '../core/lazy-builtins.js';
import { overBudget } from './patterns/bounded.js';
import type { LineShape } from './patterns/match-shape.js';
import type { PathRulesSpec } from './patterns/path-rules.js';
import type { SearchQuery } from './patterns/query.js';
import type { LeftOut, ListedFile, SearchMatch, SearchOutcome, SearchReport } from './search.js';

/**
 * Work whose time has no bound, off the main thread of a long-running process (serve, the
 * daemon), so that one caller's pattern never holds the other callers: on the main thread, three
 * searches for `(a*)*\1b` held serve for 90 s, and `!(*a*a*a*a*a*a*a*a*a*a*a*a*b)` takes minutes on
 * a 40-character name. Two kinds: a search whose regular expression only a backtracking engine
 * runs (a backreference, lookaround), and the matching of a backtracking glob (an extglob).
 *
 * A worker is stopped at the budget (TIMEOUT), when the call is cancelled, or when it outgrows its
 * heap (QUERY_TOO_COMPLEX). At most as many run at once as there are cores; a job waiting for its
 * turn spends its own budget. A worker starts in ~30-50 ms, which only these rare patterns pay.
 */
export type WorkerJob = SearchJob | GlobJob;

export interface SearchJob {
  kind: 'search';
  query: SearchQuery;
  /** The files of the roots, in walk order, from the main thread's index. */
  files: ListedFile[];
  /** Only the files whose path inside their root these rules take: applied here, by the same worker. */
  rules?: PathRulesSpec;
  /** What each file gives (SearchOptions.report). */
  report?: SearchReport;
  /** What the listing left out (walk.ts). */
  skipped: LeftOut;
  limit: number;
  context: number;
  /** rg's -B/-A and -m (match-shape.ts), and -o's parts, which the worker takes from the query. */
  shape?: Omit<LineShape, 'parts'> & { onlyMatching: boolean };
  /** Post each match as it is found (the terminal's --limit 0). */
  stream: boolean;
}

export interface GlobJob {
  kind: 'glob';
  /** One glob (find_files, smart_search), or a search's -g and -t rules. */
  glob?: string;
  rules?: PathRulesSpec;
  hidden: boolean;
  /** Paths inside their roots; the answer is those the glob matches. */
  paths: string[];
}

export type WorkerMessage =
  | { match: SearchMatch }
  | { done: SearchOutcome | string[] }
  | { failed: { code?: ErrorCode; message: string; details?: Record<string, unknown>; hint?: string } };

interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  onMatch?: (match: SearchMatch) => void;
}

/** A worker's heap, past which its job is QUERY_TOO_COMPLEX (a backtracking engine's state on a long line). */
const HEAP_MB = 512;
const MAX_WORKERS = Math.max(2, availableParallelism());

// One bound for the process, whichever copy of this module searches (core/process-shared.ts): two
// would each start MAX_WORKERS.
const workers = processShared('searchWorkers', () => ({ running: 0, waiting: [] as (() => void)[] }));

export async function searchInWorker(job: Omit<SearchJob, 'kind'>, options: RunOptions): Promise<SearchOutcome> {
  return (await inWorker({ kind: 'search', ...job }, 'The search', options)) as SearchOutcome;
}

/** The paths the glob matches, in their order. */
export async function globInWorker(job: Omit<GlobJob, 'kind'>, options: RunOptions): Promise<string[]> {
  return (await inWorker({ kind: 'glob', ...job }, 'Matching the glob', options)) as string[];
}

async function inWorker(job: WorkerJob, what: string, options: RunOptions): Promise<SearchOutcome | string[]> {
  const deadline = Date.now() + options.timeoutMs;
  if (workers.running >= MAX_WORKERS) {
    const turn = new Promise<void>((resolve) => workers.waiting.push(resolve));
    const left = deadline - Date.now();
    const late = Number.isFinite(left) ? new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), left).unref()) : undefined;
    if ((await Promise.race([turn, ...(late ? [late] : [])])) === 'late') {
      // Its turn may still come: it is passed on to the next in line.
      void turn.then(release);
      throw overBudget(options.timeoutMs, what);
    }
  } else workers.running++;
  try {
    return await run(job, deadline, what, options);
  } finally {
    release();
  }
}

function release(): void {
  const next = workers.waiting.shift();
  if (next) next();
  else workers.running--;
}

function run(job: WorkerJob, deadline: number, what: string, options: RunOptions): Promise<SearchOutcome | string[]> {
  return new Promise((resolve, reject) => {
    const worker = new (workerThreads().Worker)(join(packageRoot(), 'dist', 'retrieve', 'search-worker.cjs'), {
      workerData: job,
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    });
    const streamed: SearchMatch[] = [];
    let settled = false;
    const settle = (end: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      end();
    };
    const left = deadline - Date.now();
    const timer = Number.isFinite(left) ? setTimeout(() => settle(() => reject(overBudget(options.timeoutMs, what))), Math.max(0, left)) : undefined;
    const onAbort = () => settle(() => reject(options.signal!.reason));
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: WorkerMessage) => {
      if ('match' in message) {
        streamed.push(message.match);
        options.onMatch?.(message.match);
      } else if ('done' in message) {
        const done = message.done;
        settle(() => resolve(job.kind === 'search' && job.stream ? { ...(done as SearchOutcome), matches: streamed } : done));
      } else {
        const { code, message: text, details, hint } = message.failed;
        settle(() => reject(code ? new ToolError(code, text, { ...(details ? { details } : {}), ...(hint ? { hint } : {}) }) : new Error(`worker: ${text}`)));
      }
    });
    worker.on('error', (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new ToolError('QUERY_TOO_COMPLEX', `${what} stopped: the pattern needed more than ${HEAP_MB} MB for what it met.`, {
                hint: 'Simplify the pattern (no backreference, lookaround or extglob), or narrow the search.',
              })
            : error,
        ),
      ),
    );
    worker.on('exit', (code) => settle(() => reject(new Error(`worker exited with code ${code} before answering`))));
  });
}
