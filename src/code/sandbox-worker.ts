import { parentPort, workerData } from 'node:worker_threads';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import type { QuickJSSyncVariant } from 'quickjs-emscripten-core';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  shouldInterruptAfterDeadline,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { BOOTSTRAP } from './bootstrap.js';
import type { CallFailure, FromWorker, RunFailure, ToWorker, WorkerAnswer, WorkerJob, WorkerSetup } from './protocol.js';

/**
 * Code-mode runs, one at a time, in a worker thread started by ./sandbox-threads.ts: each script
 * runs in a QuickJS instance of its own, compiled to WebAssembly, with a heap (the instance's
 * memory), a stack and a deadline of its own. The engine has no `process`, `require`, `import`,
 * `fetch`, file system or timers; the script's world is what the bootstrap (./bootstrap.ts) gives
 * it: `tools` (each call a message to the host, answered as a string), `console` (kept, within the
 * output limit) and `sleep` (a timer of this thread, within the run's deadline). Nothing of the
 * host crosses but strings.
 *
 * A thread may run several scripts, one after another (./sandbox-threads.ts decides), never two
 * at once: a run's instance, handles, timers and calls are its `EngineRun`'s, and the instance is
 * a new one on memory zeroed for it, so a script finds nothing of the one before. A run that
 * returned says what it left behind (calls unanswered, sleeps pending, its memory's size): with
 * anything left, the host ends the thread rather than give it another script.
 *
 * The engine's heap is bounded by its WebAssembly memory, whose maximum is the run's memory_mb
 * above what the engine starts with: QuickJS's own count of its heap (setMemoryLimit) misses most
 * of what a typed array or a long string takes when built for WebAssembly (measured: a script
 * holding 1 MB arrays under a 64 MB limit reached the 2 GiB a WebAssembly memory can have).
 */

const setup = workerData as WorkerSetup;
const port = parentPort!;
const base = variant as unknown as QuickJSSyncVariant;
const engine = (job: WorkerJob) => newVariant(base, { ...(setup.engine ? { wasmModule: setup.engine } : {}), wasmMemory: memoryFor(job.limits) });

/** Most sleeps pending at once: each holds a timer of this thread. */
const MAX_SLEEPS = 1000;

/** A WebAssembly page; the engine starts with 256 of them (16 MiB: its C stack, static data and first heap). */
const PAGE_BYTES = 65536;
const ENGINE_PAGES = 256;

/** This thread's engine memory: the next run's, zeroed, when its bound is the same (a new memory reserves address space until collected). */
let memory: { maximum: number; memory: WebAssembly.Memory } | undefined;

function memoryFor(limits: WorkerJob['limits']): WebAssembly.Memory {
  const maximum = ENGINE_PAGES + Math.ceil(limits.memoryBytes / PAGE_BYTES);
  if (memory?.maximum === maximum) {
    new Uint8Array(memory.memory.buffer).fill(0);
    return memory.memory;
  }
  memory = { maximum, memory: new WebAssembly.Memory({ initial: ENGINE_PAGES, maximum }) };
  return memory.memory;
}

type Failure = { kind: RunFailure; message: string; stack?: string; own?: CallFailure };

/** An allocation the engine's memory had no room for, made by the glue on the host's behalf (a string it hands in). */
class OutOfEngineMemory extends Error {
  constructor() {
    super('out of memory');
  }
}

/**
 * The glue writes what it hands the engine (an answer, the script) at the address its malloc
 * returns, without a check: at the memory's maximum that is 0, and the bytes would land on the
 * engine's own data before anything traps. It throws instead. Fails closed when the glue has no
 * malloc where it is looked for (a change of the package).
 */
function guardAllocations(quickjs: QuickJSWASMModule): void {
  const module = (quickjs as unknown as { module?: { _malloc?: (bytes: number) => number } }).module;
  const malloc = module?._malloc;
  if (!module || typeof malloc !== 'function') throw new Error('QuickJS glue without _malloc: allocations cannot be checked');
  module._malloc = (bytes: number) => {
    const at = malloc(bytes);
    if (at === 0 && bytes > 0) throw new OutOfEngineMemory();
    return at;
  };
}
type Said = FromWorker extends infer M ? (M extends unknown ? Omit<M, 'run'> : never) : never;

/** One script's run: its engine, the calls it awaits, its sleeps, what it printed. */
class EngineRun {
  private readonly logs: string[] = [];
  private logBytes = 0;
  private ended = false;
  private readonly pending = new Map<number, QuickJSDeferredPromise>();
  private seq = 0;
  /** The timers of its sleeps, until each has run (MAX_SLEEPS bounds them). */
  private readonly sleeps = new Set<NodeJS.Timeout>();
  /** Refused sleeps not yet settled (each holds the run's engine until then). */
  private refusing = 0;
  private describeHandle: QuickJSHandle | undefined;
  private maxHandle: QuickJSHandle | undefined;
  private readonly runtime: QuickJSRuntime;
  private readonly vm: QuickJSContext;

  constructor(
    private readonly job: WorkerJob,
    private readonly quickjs: QuickJSWASMModule,
  ) {
    guardAllocations(quickjs);
    this.runtime = quickjs.newRuntime();
    this.runtime.setMemoryLimit(job.limits.memoryBytes);
    this.runtime.setMaxStackSize(job.limits.stackBytes);
    this.runtime.setInterruptHandler(shouldInterruptAfterDeadline(job.limits.deadline));
    this.vm = this.runtime.newContext();
  }

  /** Which run this is (the host's number for it). */
  get run(): number {
    return this.job.run;
  }

  private post(message: Said): void {
    port.postMessage({ run: this.job.run, ...message } as FromWorker);
  }

  /** Ends the run, once: the host ends this thread when it has the message. */
  private fail(failure: Failure): void {
    if (this.ended) return;
    this.ended = true;
    this.post({ failed: { ...failure, logs: this.logs } });
  }

  /** What an exception inside the engine was: out of memory, past the deadline, or the script's own (or a host's failure it did not catch). */
  private failureOf(handle: QuickJSHandle): Failure {
    const { vm, job } = this;
    const described = this.describeHandle ? vm.callFunction(this.describeHandle, vm.undefined, handle, this.maxHandle!) : undefined;
    if (described && !described.error) {
      const text = vm.dump(described.value) as string | null;
      described.value.dispose();
      if (text === null) return { kind: 'memory', message: 'out of memory' };
      const error = JSON.parse(text) as { name: string; message: string; stack?: string; code?: string; details?: Record<string, unknown>; hint?: string };
      if (/out of memory/i.test(error.message)) return { kind: 'memory', message: error.message };
      if (error.name === 'InternalError' && /interrupted/i.test(error.message)) return { kind: 'interrupted', message: error.message };
      if (error.name === 'SyntaxError') return { kind: 'syntax', message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
      const own =
        error.code !== undefined ? { own: { code: error.code, message: error.message, details: error.details, hint: error.hint } as CallFailure } : {};
      return { kind: 'error', message: `${error.name}: ${error.message}`, ...(error.stack ? { stack: error.stack } : {}), ...own };
    }
    described?.error?.dispose();
    // describe could not run: the engine is out of memory or past its deadline (or it has no bootstrap yet).
    const error = vm.dump(handle) as { name?: string; message?: string } | string | null;
    if (error === null || error === undefined) return { kind: 'memory', message: 'out of memory' };
    const name = typeof error === 'object' ? (error.name ?? 'Error') : 'Error';
    const message = String(typeof error === 'object' ? (error.message ?? '') : error).slice(0, job.limits.maxOutputBytes);
    if (/out of memory/i.test(message)) return { kind: 'memory', message };
    if (name === 'InternalError' && /interrupted/i.test(message)) return { kind: 'interrupted', message };
    return { kind: name === 'SyntaxError' ? 'syntax' : 'error', message: `${name}: ${message}` };
  }

  /** Runs what became ready inside the engine (after an answer came in); an error there ends the run. */
  private drain(): void {
    if (this.ended) return;
    const ran = this.runtime.executePendingJobs();
    if (ran.error) {
      const failure = this.failureOf(ran.error);
      ran.error.dispose();
      this.fail(failure);
    }
  }

  /** Ends the run with what an exception inside the engine was. */
  private failWith(handle: QuickJSHandle): void {
    const failure = this.failureOf(handle);
    handle.dispose();
    this.fail(failure);
  }

  private readonly call = (nameHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle => {
    const { vm } = this;
    const deferred = vm.newPromise();
    const id = ++this.seq;
    this.pending.set(id, deferred);
    const name = vm.typeof(nameHandle) === 'string' ? vm.getString(nameHandle) : '';
    const args = vm.typeof(argsHandle) === 'string' ? vm.getString(argsHandle) : '{}';
    this.post({ call: { id, name, args } });
    return deferred.handle;
  };

  private readonly log = (levelHandle: QuickJSHandle, textHandle: QuickJSHandle): void => {
    const level = this.vm.getString(levelHandle);
    const text = this.vm.getString(textHandle);
    const line = level === 'log' || level === 'info' || level === 'debug' ? text : `${level}: ${text}`;
    this.logBytes += Buffer.byteLength(line) + 1;
    if (this.logBytes > this.job.limits.maxOutputBytes) {
      this.fail({ kind: 'output', message: `the script printed more than ${this.job.limits.maxOutputBytes} bytes` });
      return;
    }
    this.logs.push(line);
  };

  /** A host failure as the bootstrap makes an Error of it (with its code). */
  private refusal(code: string, message: string, details: Record<string, unknown>): QuickJSHandle {
    return this.vm.newString(JSON.stringify({ code, message, details }));
  }

  /** sleep(ms): resolves after ms, on this thread's timer; refused when it would end past the run's deadline. */
  private readonly sleep = (msHandle: QuickJSHandle): QuickJSHandle => {
    const { vm, job } = this;
    const deferred = vm.newPromise();
    const ms = vm.typeof(msHandle) === 'number' ? vm.getNumber(msHandle) : NaN;
    const left = job.limits.deadline - Date.now();
    const refused =
      !Number.isFinite(ms) || ms < 0
        ? this.refusal('INVALID_INPUT', `sleep(ms) takes a number of milliseconds, 0 or more.`, {})
        : ms >= left
          ? this.refusal(
              'TIMEOUT',
              `sleep(${Math.round(ms)}) would end past the run's time: ${Math.max(0, Math.round(left))} ms are left (code.timeout_ms: ${job.limits.timeoutMs}).`,
              { timeout_ms: job.limits.timeoutMs, left_ms: Math.max(0, Math.round(left)) },
            )
          : this.sleeps.size >= MAX_SLEEPS
            ? this.refusal('SCRIPT_LIMIT', `More than ${MAX_SLEEPS} sleeps at once.`, { max_sleeps: MAX_SLEEPS })
            : undefined;
    if (refused) {
      // Settled as an answer is (after this call returns the promise), and the engine's jobs run.
      this.refusing++;
      setImmediate(() => {
        this.refusing--;
        if (!this.ended) deferred.reject(refused);
        refused.dispose();
        deferred.dispose();
        this.drain();
      });
      return deferred.handle;
    }
    const timer = setTimeout(() => {
      this.sleeps.delete(timer);
      if (!this.ended) deferred.resolve(vm.undefined);
      deferred.dispose();
      this.drain();
    }, ms);
    this.sleeps.add(timer);
    return deferred.handle;
  };

  start(): void {
    const { vm: context, job } = this;
    const callHandle = context.newFunction('call', this.call);
    const logHandle = context.newFunction('log', this.log);
    const sleepHandle = context.newFunction('sleep', this.sleep);
    const boot = context.unwrapResult(context.evalCode(BOOTSTRAP, 'mcpkit-bootstrap.js'));
    const tree = context.unwrapResult(context.evalCode(`(${JSON.stringify(job.tools)})`));
    const world = context.unwrapResult(context.callFunction(boot, context.undefined, callHandle, logHandle, sleepHandle, tree));
    const finish = context.getProp(world, 'finish');
    this.describeHandle = context.getProp(world, 'describe');
    this.maxHandle = context.newNumber(job.limits.maxOutputBytes);
    for (const handle of [boot, tree, world, callHandle, logHandle, sleepHandle]) handle.dispose();
    // The script's first line is the wrapper's second: the host maps its places back (./script-errors.ts).
    const evaluated = context.evalCode(`(async () => {\n${job.code}\n})()`, 'script.js');
    if (evaluated.error) return this.failWith(evaluated.error);
    const main = evaluated.value;
    void context.resolvePromise(main).then((outcome) => {
      main.dispose();
      if (this.ended) return;
      if (outcome.error) return this.failWith(outcome.error);
      const text = context.callFunction(finish, context.undefined, outcome.value);
      outcome.value.dispose();
      if (text.error) return this.failWith(text.error);
      const result = context.dump(text.value) as string | { error: string };
      text.value.dispose();
      if (typeof result !== 'string')
        return this.fail(
          /out of memory/i.test(result.error)
            ? { kind: 'memory', message: result.error }
            : { kind: 'error', message: `The script's value cannot be made JSON: ${result.error}` },
        );
      if (Buffer.byteLength(result) + this.logBytes > job.limits.maxOutputBytes)
        return this.fail({ kind: 'output', message: `the script's value and what it printed are more than ${job.limits.maxOutputBytes} bytes` });
      this.ended = true;
      const left = { calls: this.pending.size, sleeps: this.sleeps.size + this.refusing, memoryBytes: this.quickjs.getWasmMemory().buffer.byteLength };
      this.post({ done: { result, logs: this.logs, left } });
    });
    this.drain();
  }

  /** The host failed to hand the engine something: out of the engine's memory, or worse (the run ends either way). */
  failOnHost(error: unknown): void {
    if (error instanceof OutOfEngineMemory) return this.fail({ kind: 'memory', message: error.message });
    throw error;
  }

  /** An answer to one of this run's calls: the engine's promise settles, and what became ready runs. */
  answered(answer: WorkerAnswer): void {
    const deferred = this.pending.get(answer.id);
    if (!deferred || this.ended) return;
    this.pending.delete(answer.id);
    let value: QuickJSHandle;
    try {
      value = this.vm.newString(answer.ok ? answer.value : answer.error);
    } catch (error) {
      return this.failOnHost(error);
    }
    if (answer.ok) deferred.resolve(value);
    else deferred.reject(value);
    value.dispose();
    deferred.dispose();
    this.drain();
  }
}

/** The run under way: a thread's next run replaces it (the host sends a job only once the last one returned clean). */
let current: EngineRun | undefined;

port.on('message', (message: ToWorker) => {
  if ('job' in message) {
    const { job } = message;
    // A new instance on zeroed memory: the next script finds nothing of this one's heap.
    void newQuickJSWASMModuleFromVariant(engine(job)).then((quickjs) => {
      current = new EngineRun(job, quickjs);
      try {
        current.start();
      } catch (error) {
        current.failOnHost(error);
      }
    });
  } else if (current?.run === message.run) current.answered(message.answer);
});
