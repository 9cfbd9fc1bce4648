import { availableParallelism, totalmem } from 'node:os';
import { ToolError } from '../core/errors.js';
import { CODE_LIMIT_DEFAULTS } from './limits.js';
import { endWaitingThreads, KEPT_THREADS, sandboxThreads } from './sandbox-threads.js';

/**
 * One budget for code mode across serve: runs in flight in all, per client, and the memory their
 * workers may take together. A run over any of them is refused at once (RATE_LIMITED, with when
 * to try again), never queued: a run holds a thread and its memory for up to its timeout.
 */
export interface RunBudgetSettings {
  /** Runs in flight across all clients (serve.code.max_runs). */
  maxRuns: number;
  /** Runs in flight of one client, named or not (serve.code.max_runs_per_client). */
  maxRunsPerClient: number;
  /** Memory of every run in flight together, in MB (serve.code.max_memory_mb). */
  maxMemoryMb: number;
}

/**
 * What a run's worker takes besides its script's heap (memory_mb): the thread, its V8 heap and the
 * engine's WebAssembly module. Measured here: about 12 MB for a run that only loops.
 */
export const RUN_OVERHEAD_MB = 16;

/** Most milliseconds a refusal asks to wait: runs end at their timeout at the latest, most far sooner. */
const MAX_RETRY_AFTER_MS = 1000;

/**
 * Defaults sized to the machine: four runs per core in all (a run is mostly waiting on its tool
 * calls), a core's worth per client (at least 2), and memory for every run at the default heap,
 * but never more than half the machine's. Pure (the machine is given).
 */
export function runBudgetDefaults(cores: number = availableParallelism(), totalMb: number = totalmem() / 2 ** 20): RunBudgetSettings {
  const maxRuns = 4 * Math.max(1, cores);
  return {
    maxRuns,
    maxRunsPerClient: Math.min(maxRuns, Math.max(2, cores)),
    maxMemoryMb: Math.floor(Math.min(maxRuns * (CODE_LIMIT_DEFAULTS.memoryMb + RUN_OVERHEAD_MB), totalMb / 2)),
  };
}

/** serve.code's budget settings over the defaults. Pure. */
export function runBudgetSettingsOf(
  settings: { max_runs?: number | undefined; max_runs_per_client?: number | undefined; max_memory_mb?: number | undefined } | undefined,
  defaults: RunBudgetSettings = runBudgetDefaults(),
): RunBudgetSettings {
  return {
    maxRuns: settings?.max_runs ?? defaults.maxRuns,
    maxRunsPerClient: settings?.max_runs_per_client ?? defaults.maxRunsPerClient,
    maxMemoryMb: settings?.max_memory_mb ?? defaults.maxMemoryMb,
  };
}

export type RunAdmission = { ok: true; release(): void } | { ok: false; error: ToolError };

interface HeldRun {
  client: string;
  memoryMb: number;
  endsAt: number;
}

/** Threads whose run returned, waiting for the next (./sandbox-threads.ts): they hold memory too. */
export interface WaitingThreads {
  count(): number;
  /** Ends this many of them, freeing their memory. */
  end(count: number): void;
}

/** What a waiting thread may hold: its last run's engine at most, and the thread. */
export const WAITING_THREAD_MB = KEPT_THREADS.memoryBytes / 2 ** 20 + RUN_OVERHEAD_MB;

const PROCESS_THREADS: WaitingThreads = { count: () => sandboxThreads().waiting, end: (count) => void endWaitingThreads(count) };

/** The runs in flight of one serve, and whether one more fits. The clock is given. */
export class RunBudget {
  private readonly held = new Set<HeldRun>();

  constructor(private readonly waiting: WaitingThreads = PROCESS_THREADS) {}

  get running(): number {
    return this.held.size;
  }

  /**
   * A place for one run of `client`, whose heap is `memoryMb` and which ends by `timeoutMs` from
   * `now`; or the refusal, naming the setting it would pass.
   */
  admit(client: string, run: { memoryMb: number; timeoutMs: number }, settings: RunBudgetSettings, now: number): RunAdmission {
    const cost = run.memoryMb + RUN_OVERHEAD_MB;
    if (cost > settings.maxMemoryMb) return { ok: false, error: neverFits(cost, run.memoryMb, settings.maxMemoryMb) };
    const own = [...this.held].filter((h) => h.client === client);
    if (own.length >= settings.maxRunsPerClient) {
      const why = `client ${client} has ${own.length} runs in flight (serve.code.max_runs_per_client: ${settings.maxRunsPerClient})`;
      return { ok: false, error: refused(why, { client, max_runs_per_client: settings.maxRunsPerClient }, retryAfter(own, now)) };
    }
    const all = [...this.held];
    if (all.length >= settings.maxRuns) {
      const why = `serve has ${all.length} runs in flight (serve.code.max_runs: ${settings.maxRuns})`;
      return { ok: false, error: refused(why, { client, max_runs: settings.maxRuns }, retryAfter(all, now)) };
    }
    const reserved = all.reduce((sum, h) => sum + h.memoryMb, 0);
    if (reserved + cost > settings.maxMemoryMb) {
      const why = `the runs in flight hold ${reserved} MB and this one needs ${cost} MB (serve.code.max_memory_mb: ${settings.maxMemoryMb})`;
      return { ok: false, error: refused(why, { client, max_memory_mb: settings.maxMemoryMb }, retryAfter(all, now)) };
    }
    // Threads kept for a next run count too (but the one this run takes), and give way: those that
    // would crowd this run out past the budget end.
    const others = Math.max(0, this.waiting.count() - 1);
    const room = Math.max(0, Math.floor((settings.maxMemoryMb - reserved - cost) / WAITING_THREAD_MB));
    if (others > room) this.waiting.end(others - room);
    const held: HeldRun = { client, memoryMb: cost, endsAt: now + run.timeoutMs };
    this.held.add(held);
    return { ok: true, release: () => void this.held.delete(held) };
  }
}

/** When a place will likely be free: when the first of these runs ends at the latest, at most a second. */
function retryAfter(runs: readonly HeldRun[], now: number): number {
  const first = Math.min(...runs.map((r) => r.endsAt));
  return Math.max(1, Math.min(MAX_RETRY_AFTER_MS, Math.ceil(first - now)));
}

function refused(why: string, details: Record<string, unknown>, retryAfterMs: number): ToolError {
  return new ToolError('RATE_LIMITED', `The script was not run: ${why}.`, {
    details: { ...details, retry_after_ms: retryAfterMs },
    hint: `Wait ${retryAfterMs} ms, then run it again; or do more in one run.`,
  });
}

function neverFits(cost: number, memoryMb: number, maxMemoryMb: number): ToolError {
  return new ToolError(
    'SCRIPT_LIMIT',
    `A run needs ${cost} MB (its code.memory_mb of ${memoryMb}, and its thread), more than serve.code.max_memory_mb (${maxMemoryMb}).`,
    {
      details: { memory_mb: memoryMb, max_memory_mb: maxMemoryMb },
      hint: "Lower the view's code.memory_mb, or raise serve.code.max_memory_mb.",
    },
  );
}
