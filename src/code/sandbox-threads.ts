import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { workerThreads } from '../core/lazy-builtins.js';
import { packageRoot } from '../core/version.js';
import type { RunLeftovers, WorkerSetup } from './protocol.js';

/**
 * The worker threads code-mode runs in (./sandbox-worker.ts). A thread's start is most of a short
 * run's CPU (~110 ms of ~130 for `return 1`, measured here): a thread whose script returned clean waits for the
 * next run, which pays only for its new QuickJS instance. Clean means the run left nothing in the
 * thread that could outlive it: no call unanswered, no sleep pending (either would keep the run's
 * engine, and its memory, alive past the run), and an engine whose memory stayed small (what a
 * waiting thread holds until its memory is collected). A run that ended any other way (an error, a
 * limit, the deadline, a cancel) ends its thread, as before.
 */
export const KEPT_THREADS = {
  /** Engine memory at most (WebAssembly memory starts at 16 MiB): a run that grew past it ends its thread, freeing it at once. */
  memoryBytes: 32 * 1024 * 1024,
  /** Runs in one thread at most, so that nothing of the thread's own heap gathers run after run. */
  runsPerThread: 50,
  /** Threads waiting at most (unref'd: they keep no process alive). */
  waiting: 2,
  /** How long a thread waits for a run before it ends. */
  idleMs: 10_000,
} as const;

/** Whether a thread whose run returned, leaving `left`, may wait for the next one. Pure. */
export function keepsThread(left: RunLeftovers, runsInThread: number, waitingNow: number, limits: typeof KEPT_THREADS = KEPT_THREADS): boolean {
  return left.calls === 0 && left.sleeps === 0 && left.memoryBytes <= limits.memoryBytes && runsInThread < limits.runsPerThread && waitingNow < limits.waiting;
}

/** The threads waiting, oldest first, each with the timer that ends it and the listener it waits with. */
const waiting = new Map<Worker, { timer: NodeJS.Timeout; gone: () => void }>();
const runsIn = new WeakMap<Worker, number>();
let started = 0;
let runs = 0;

/** The number that names a run in its messages. */
export function nextRun(): number {
  return ++runs;
}

/** A thread for a run: one waiting, else a new one. */
export function takeThread(engine: WebAssembly.Module | undefined): Worker {
  const spare = [...waiting.keys()].at(-1);
  if (spare) {
    stopWaiting(spare);
    spare.ref();
    runsIn.set(spare, (runsIn.get(spare) ?? 0) + 1);
    return spare;
  }
  started++;
  const worker = new (workerThreads().Worker)(join(packageRoot(), 'dist', 'code', 'sandbox-worker.js'), {
    workerData: (engine ? { engine } : {}) satisfies WorkerSetup,
    // The engine's heap is WebAssembly memory, bounded by the engine; this bounds the thread around it.
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
    stdout: true,
    stderr: true,
  });
  // A thread that is ending may still report an error (its own heap's limit, say) after its run
  // took its listeners off: it is nobody's, and must not reach the process as an uncaught one.
  worker.on('error', () => undefined);
  runsIn.set(worker, 1);
  return worker;
}

/**
 * The thread's run is over: it waits for the next run when the run returned clean (`left`, see
 * keepsThread), else it ends. The run has taken its own listeners off it.
 */
export function releaseThread(worker: Worker, left?: RunLeftovers): void {
  if (!left || !keepsThread(left, runsIn.get(worker) ?? 0, waiting.size)) return void worker.terminate();
  worker.unref();
  // A waiting thread that fails or ends (it should not) is no longer waiting; its error is nobody's.
  const gone = () => {
    stopWaiting(worker);
    void worker.terminate();
  };
  worker.once('error', gone);
  worker.once('exit', gone);
  waiting.set(worker, { timer: setTimeout(gone, KEPT_THREADS.idleMs).unref(), gone });
}

/** The thread no longer waits: it runs, or it ends. */
function stopWaiting(worker: Worker): void {
  const wait = waiting.get(worker);
  if (!wait) return;
  waiting.delete(worker);
  clearTimeout(wait.timer);
  worker.off('error', wait.gone);
  worker.off('exit', wait.gone);
}

/** The threads started in this process so far, and those waiting now: what the tests see of reuse. */
export function sandboxThreads(): { started: number; waiting: number } {
  return { started, waiting: waiting.size };
}

/** Ends `count` of the threads waiting now, the longest waiting first (all: a test starts from none). */
export async function endWaitingThreads(count = waiting.size): Promise<void> {
  const ending = [...waiting.keys()].slice(0, count);
  for (const worker of ending) stopWaiting(worker);
  await Promise.all(ending.map((worker) => worker.terminate()));
}
