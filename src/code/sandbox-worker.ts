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
} from 'quickjs-emscripten-core';
import { BOOTSTRAP } from './bootstrap.js';
import type { CallFailure, FromWorker, RunFailure, ToWorker, WorkerJob } from './protocol.js';

/**
 * One code-mode run, in a worker thread of its own (started by ./sandbox.ts): the script runs in
 * QuickJS, compiled to WebAssembly, with a heap, a stack and a deadline of its own. The engine has
 * no `process`, `require`, `import`, `fetch`, file system or timers; the script's world is what the
 * bootstrap (./bootstrap.ts) gives it: `tools` (each call a message to the host, answered as a
 * string), `console` (kept, within the output limit) and `sleep` (a timer of this thread, within
 * the run's deadline). Nothing of the host crosses but strings.
 */

const job = workerData as WorkerJob;
const port = parentPort!;
const send = (message: FromWorker) => port.postMessage(message);

const base = variant as unknown as QuickJSSyncVariant;
const QuickJS = await newQuickJSWASMModuleFromVariant(job.engine ? newVariant(base, { wasmModule: job.engine }) : base);
const runtime = QuickJS.newRuntime();
runtime.setMemoryLimit(job.limits.memoryBytes);
runtime.setMaxStackSize(job.limits.stackBytes);
const deadline = job.limits.deadline;
runtime.setInterruptHandler(shouldInterruptAfterDeadline(deadline));
const vm = runtime.newContext();

const logs: string[] = [];
let logBytes = 0;
let ended = false;

type Failure = { kind: RunFailure; message: string; stack?: string; own?: CallFailure };

/** Ends the run, once: the host terminates this thread when it has the message. */
function fail(failure: Failure): void {
  if (ended) return;
  ended = true;
  send({ failed: { ...failure, logs } });
}

/** What an exception inside the engine was: out of memory, past the deadline, or the script's own (or a host's failure it did not catch). */
function failureOf(handle: QuickJSHandle): Failure {
  const described = describeHandle ? vm.callFunction(describeHandle, vm.undefined, handle, maxHandle!) : undefined;
  if (described && !described.error) {
    const text = vm.dump(described.value) as string | null;
    described.value.dispose();
    if (text === null) return { kind: 'memory', message: 'out of memory' };
    const error = JSON.parse(text) as { name: string; message: string; stack?: string; code?: string; details?: Record<string, unknown>; hint?: string };
    if (/out of memory/i.test(error.message)) return { kind: 'memory', message: error.message };
    if (error.name === 'InternalError' && /interrupted/i.test(error.message)) return { kind: 'interrupted', message: error.message };
    if (error.name === 'SyntaxError') return { kind: 'syntax', message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
    const own = error.code !== undefined ? { own: { code: error.code, message: error.message, details: error.details, hint: error.hint } as CallFailure } : {};
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

const pending = new Map<number, QuickJSDeferredPromise>();
let seq = 0;

const callHandle = vm.newFunction('call', (nameHandle, argsHandle) => {
  const deferred = vm.newPromise();
  const id = ++seq;
  pending.set(id, deferred);
  const name = vm.typeof(nameHandle) === 'string' ? vm.getString(nameHandle) : '';
  const args = vm.typeof(argsHandle) === 'string' ? vm.getString(argsHandle) : '{}';
  send({ call: { id, name, args } });
  return deferred.handle;
});
const logHandle = vm.newFunction('log', (levelHandle, textHandle) => {
  const level = vm.getString(levelHandle);
  const text = vm.getString(textHandle);
  const line = level === 'log' || level === 'info' || level === 'debug' ? text : `${level}: ${text}`;
  logBytes += Buffer.byteLength(line) + 1;
  if (logBytes > job.limits.maxOutputBytes) {
    fail({ kind: 'output', message: `the script printed more than ${job.limits.maxOutputBytes} bytes` });
    return;
  }
  logs.push(line);
});

/** Most sleeps pending at once: each holds a timer of this thread. */
const MAX_SLEEPS = 1000;
let sleeping = 0;

/** A host failure as the bootstrap makes an Error of it (with its code). */
const refusal = (code: string, message: string, details: Record<string, unknown>) => vm.newString(JSON.stringify({ code, message, details }));

/** sleep(ms): resolves after ms, on this thread's timer; refused when it would end past the run's deadline. */
const sleepHandle = vm.newFunction('sleep', (msHandle) => {
  const deferred = vm.newPromise();
  const ms = vm.typeof(msHandle) === 'number' ? vm.getNumber(msHandle) : NaN;
  const left = deadline - Date.now();
  const refused =
    !Number.isFinite(ms) || ms < 0
      ? refusal('INVALID_INPUT', `sleep(ms) takes a number of milliseconds, 0 or more.`, {})
      : ms >= left
        ? refusal(
            'TIMEOUT',
            `sleep(${Math.round(ms)}) would end past the run's time: ${Math.max(0, Math.round(left))} ms are left (code.timeout_ms: ${job.limits.timeoutMs}).`,
            { timeout_ms: job.limits.timeoutMs, left_ms: Math.max(0, Math.round(left)) },
          )
        : sleeping >= MAX_SLEEPS
          ? refusal('SCRIPT_LIMIT', `More than ${MAX_SLEEPS} sleeps at once.`, { max_sleeps: MAX_SLEEPS })
          : undefined;
  if (refused) {
    // Settled as an answer is (after this call returns the promise), and the engine's jobs run.
    setImmediate(() => {
      if (!ended) deferred.reject(refused);
      refused.dispose();
      deferred.dispose();
      drain();
    });
    return deferred.handle;
  }
  sleeping++;
  setTimeout(() => {
    sleeping--;
    if (ended) return;
    deferred.resolve(vm.undefined);
    deferred.dispose();
    drain();
  }, ms);
  return deferred.handle;
});

/** Runs what became ready inside the engine (after an answer came in); an error there ends the run. */
function drain(): void {
  const ran = runtime.executePendingJobs();
  if (ran.error) {
    const failure = failureOf(ran.error);
    ran.error.dispose();
    fail(failure);
  }
}

/** Ends the run with what an exception inside the engine was. */
function failWith(handle: QuickJSHandle): void {
  const failure = failureOf(handle);
  handle.dispose();
  fail(failure);
}

let describeHandle: QuickJSHandle | undefined;
let maxHandle: QuickJSHandle | undefined;

function start(context: QuickJSContext): void {
  const boot = context.unwrapResult(context.evalCode(BOOTSTRAP, 'mcpkit-bootstrap.js'));
  const tree = context.unwrapResult(context.evalCode(`(${JSON.stringify(job.tools)})`));
  const world = context.unwrapResult(context.callFunction(boot, context.undefined, callHandle, logHandle, sleepHandle, tree));
  const finish = context.getProp(world, 'finish');
  describeHandle = context.getProp(world, 'describe');
  maxHandle = context.newNumber(job.limits.maxOutputBytes);
  boot.dispose();
  tree.dispose();
  world.dispose();
  // The script's first line is the wrapper's second: the host maps its places back (./script-errors.ts).
  const evaluated = context.evalCode(`(async () => {\n${job.code}\n})()`, 'script.js');
  if (evaluated.error) return failWith(evaluated.error);
  const main = evaluated.value;
  void context.resolvePromise(main).then((outcome) => {
    main.dispose();
    if (ended) return;
    if (outcome.error) return failWith(outcome.error);
    const text = context.callFunction(finish, context.undefined, outcome.value);
    outcome.value.dispose();
    if (text.error) return failWith(text.error);
    const result = context.dump(text.value) as string | { error: string };
    text.value.dispose();
    if (typeof result !== 'string') return fail({ kind: 'error', message: `The script's value cannot be made JSON: ${result.error}` });
    if (Buffer.byteLength(result) + logBytes > job.limits.maxOutputBytes)
      return fail({ kind: 'output', message: `the script's value and what it printed are more than ${job.limits.maxOutputBytes} bytes` });
    ended = true;
    send({ done: { result, logs } });
  });
  drain();
}

port.on('message', (message: ToWorker) => {
  const { answer } = message;
  const deferred = pending.get(answer.id);
  if (!deferred || ended) return;
  pending.delete(answer.id);
  const value = vm.newString(answer.ok ? answer.value : answer.error);
  if (answer.ok) deferred.resolve(value);
  else deferred.reject(value);
  value.dispose();
  deferred.dispose();
  drain();
});

start(vm);
