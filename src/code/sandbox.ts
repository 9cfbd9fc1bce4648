import type { Worker } from 'node:worker_threads';
import { ToolError } from '../core/errors.js';
import type { CodeLimits } from './limits.js';
import { asScriptCall, insideAScript, nestedRunRefused, startsARun } from './nested-runs.js';
import { UNKNOWN_TOOL_MARK, type FromWorker, type RunLeftovers, type ToolTree, type ToWorker, type WorkerAnswer, type WorkerJob } from './protocol.js';
import { nextRun, releaseThread, takeThread } from './sandbox-threads.js';
import { engineModule } from './engine-module.js';
import { engineFailure, type EngineFailure } from './script-errors.js';
import type { StrippedScript } from './strip-types.js';
import { failureOf, type ScriptAnswer } from './tool-value.js';

/**
 * Code mode's host side: runs one script (JavaScript, or TypeScript with its types stripped) in a
 * worker thread (./sandbox-worker.ts), alone there while it runs, so a script that loops never
 * holds the thread that answers everyone else, and a script that is stopped takes nothing with it
 * (its thread ends; one that returned clean may run the next script, ./sandbox-threads.ts). The host keeps
 * the limits that are about the world outside the engine: wall time (the worker is terminated at
 * the deadline, whatever it does), tool calls per run, and calls at once (the rest wait their
 * turn). Each limit hit ends the run with an error that names the setting.
 */
export interface CodeRun {
  /** The script's `tools`: what each name calls. */
  tools: ToolTree;
  /** Runs one tool call of the script, to the answer the script gets (./tool-value.ts). */
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ScriptAnswer>;
  /** The published name of `tools.GROUP.NAME` where the tree has none (the call then goes on, and is refused as unknown). */
  publishedFor?(group: string, name: string): string;
  limits: CodeLimits;
  /** The run is cancelled (the client cancelled its call). */
  signal?: AbortSignal;
  /** The settings' names in the errors (a view's `code.timeout_ms`, or a flag's `--timeout-ms`). */
  settings?: Partial<Record<keyof CodeLimits, string>>;
}

export interface CodeOutcome {
  /** What the script returned (JSON). */
  result: unknown;
  /** What it printed, line by line. */
  logs: string[];
  /** Tool calls it made. */
  calls: number;
}

/** The engine's stack: deep recursion ends the run with an error, never the host. */
const STACK_BYTES = 1024 * 1024;

export async function runCode(code: string, run: CodeRun): Promise<CodeOutcome> {
  // Whatever path an inner call of a script took to get here, it does not start a run (./nested-runs.ts).
  if (insideAScript()) throw nestedRunRefused();
  // sucrase (the type stripper) is loaded by the first run, not by every process that could run one (serve, the daemon).
  const script = (await import('./strip-types.js')).toJavaScript(code);
  const engine = await engineModule();
  return new Promise<CodeOutcome>((resolve, reject) => new ScriptRun(run, script, engine, resolve, reject).start());
}

/** One run of a script: its worker, its deadline, and its tool calls, at most maxParallel at once. */
class ScriptRun {
  private worker?: Worker;
  private readonly calls = new AbortController();
  private made = 0;
  private running = 0;
  private readonly queue: (() => void)[] = [];
  private settled = false;
  private timer?: NodeJS.Timeout;
  private readonly id = nextRun();

  constructor(
    private readonly run: CodeRun,
    private readonly script: StrippedScript,
    private readonly engine: WebAssembly.Module | undefined,
    private readonly resolve: (outcome: CodeOutcome) => void,
    private readonly reject: (error: ToolError) => void,
  ) {}

  private get limits(): CodeLimits {
    return this.run.limits;
  }

  /** The setting that sets a limit, as the caller names it. */
  private readonly named = (limit: keyof CodeLimits) => this.run.settings?.[limit] ?? `code.${SETTING[limit]}`;

  start(): void {
    const { limits } = this;
    const job: WorkerJob = {
      run: this.id,
      code: this.script.js,
      tools: this.run.tools,
      limits: {
        timeoutMs: limits.timeoutMs,
        deadline: Date.now() + limits.timeoutMs,
        memoryBytes: limits.memoryMb * 1024 * 1024,
        stackBytes: STACK_BYTES,
        maxOutputBytes: limits.maxOutputBytes,
      },
    };
    const worker = (this.worker = takeThread(this.engine));
    this.timer = setTimeout(
      () =>
        this.fail(
          new ToolError('TIMEOUT', `The script ran past its ${limits.timeoutMs} ms (${this.named('timeoutMs')}).`, {
            details: { timeout_ms: limits.timeoutMs, calls: this.made },
            hint: `Do less in one run, or raise ${this.named('timeoutMs')}.`,
          }),
        ),
      limits.timeoutMs,
    );
    if (this.run.signal?.aborted) return this.cancelled();
    this.run.signal?.addEventListener('abort', this.cancelled, { once: true });
    worker.on('message', this.heard);
    worker.on('error', this.failed);
    worker.on('exit', this.exited);
    worker.postMessage({ job } satisfies ToWorker);
  }

  private readonly failed = (error: Error & { code?: string }) =>
    this.fail(
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? this.engineFailed({ kind: 'memory', message: error.message, logs: [] })
        : new ToolError('INTERNAL', `The code sandbox failed: ${error.message}`, { cause: error }),
    );

  private readonly exited = (exitCode: number) => this.fail(new ToolError('INTERNAL', `The code sandbox ended (exit code ${exitCode}) before the script did.`));

  private readonly heard = (message: FromWorker): void => {
    // This run's messages only: its thread may have run another script before.
    if (message.run !== this.id) return;
    const { limits } = this;
    if ('call' in message) {
      const { id, name, args } = message.call;
      if (++this.made > limits.maxCalls) {
        return this.fail(
          new ToolError('SCRIPT_LIMIT', `The script made more than ${limits.maxCalls} tool calls (${this.named('maxCalls')}).`, {
            details: { max_calls: limits.maxCalls },
            hint: `Make fewer calls in one run, or raise ${this.named('maxCalls')}.`,
          }),
        );
      }
      if (this.running < limits.maxParallel) this.callTool(id, name, args);
      else this.queue.push(() => this.callTool(id, name, args));
    } else if ('done' in message) {
      const { result, logs, left } = message.done;
      this.end(() => this.resolve({ result: JSON.parse(result) as unknown, logs, calls: this.made }), left);
    } else this.fail(this.engineFailed(message.failed));
  };

  /** One tool call, when its turn comes. */
  private callTool(id: number, name: string, args: string): void {
    this.running++;
    let parsed: Record<string, unknown>;
    try {
      const value = JSON.parse(args) as unknown;
      parsed = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    } catch {
      parsed = {};
    }
    const target = toolName(name, this.run);
    const called = startsARun(target, parsed) ? Promise.reject(nestedRunRefused(target)) : asScriptCall(() => this.run.call(target, parsed, this.calls.signal));
    void called
      .catch((error: unknown) => ({ ok: false as const, error: failureOf(error) }))
      .then((got) => {
        this.running--;
        this.queue.shift()?.();
        this.answer(got.ok ? { id, ok: true, value: JSON.stringify(got.value ?? null) } : { id, ok: false, error: JSON.stringify(got.error) });
      });
  }

  private engineFailed(failure: EngineFailure): ToolError {
    return engineFailure(failure, { limits: this.limits, named: this.named, calls: this.made, placeOf: this.script.placeOf });
  }

  private answer(message: WorkerAnswer): void {
    if (!this.settled) this.worker?.postMessage({ run: this.id, answer: message } satisfies ToWorker);
  }

  private readonly cancelled = () => this.fail(new ToolError('TIMEOUT', 'The run was cancelled.', { details: { calls: this.made } }));

  private fail(error: ToolError): void {
    this.end(() => this.reject(error));
  }

  /** Ends the run, once; `left`: it returned, leaving that in its thread, which may then run the next script. */
  private end(outcome: () => void, left?: RunLeftovers): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.run.signal?.removeEventListener('abort', this.cancelled);
    this.calls.abort(new Error('the run ended'));
    const worker = this.worker;
    if (worker) {
      worker.off('message', this.heard);
      worker.off('error', this.failed);
      worker.off('exit', this.exited);
      // A call still under way (aborted above) is among the run's unanswered ones: its thread ends (keepsThread).
      releaseThread(worker, left);
    }
    outcome();
  }
}

/** The name a call goes to: the tree's, or the one a group and name would be published under. */
function toolName(name: string, run: CodeRun): string {
  if (!name.startsWith(UNKNOWN_TOOL_MARK)) return name;
  try {
    const [group, member] = JSON.parse(name.slice(UNKNOWN_TOOL_MARK.length)) as [string, string];
    return run.publishedFor?.(String(group), String(member)) ?? `${String(group)}.${String(member)}`;
  } catch {
    return name.slice(UNKNOWN_TOOL_MARK.length);
  }
}

const SETTING: Record<keyof CodeLimits, string> = {
  timeoutMs: 'timeout_ms',
  memoryMb: 'memory_mb',
  maxCalls: 'max_calls',
  maxParallel: 'max_parallel',
  maxOutputBytes: 'max_output_bytes',
};
