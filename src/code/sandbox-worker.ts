import { parentPort, workerData } from 'node:worker_threads';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import type { QuickJSSyncVariant } from 'quickjs-emscripten-core';
import {
  newQuickJSWASMModuleFromVariant,
  shouldInterruptAfterDeadline,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
} from 'quickjs-emscripten-core';
import { UNKNOWN_TOOL_MARK, type FromWorker, type RunFailure, type ToWorker, type WorkerJob } from './protocol.js';

/**
 * One code-mode run, in a worker thread of its own (started by ./sandbox.ts): the script runs in
 * QuickJS, compiled to WebAssembly, with a heap, a stack and a deadline of its own. The engine has
 * no `process`, `require`, `import`, `fetch`, file system or timers; the script's world is what the
 * bootstrap below gives it: `tools` (each call a message to the host, answered as a string) and
 * `console` (kept, within the output limit). Nothing of the host crosses but strings.
 */

/**
 * Runs inside the engine before the script, with the two host functions and the tree of tools. The
 * script may change anything here (its own world); the host only ever reads strings back.
 */
const BOOTSTRAP = `(function (call, log, tree) {
  const stringify = JSON.stringify, parse = JSON.parse;
  const failure = (text) => {
    const e = parse(text);
    const error = new Error(e.message);
    error.code = e.code;
    if (e.details !== undefined) error.details = e.details;
    if (e.hint !== undefined) error.hint = e.hint;
    return error;
  };
  const tool = (name) => function (args) {
    const text = stringify(args === undefined ? {} : args);
    return call(name, text === undefined ? '{}' : text).then((answer) => parse(answer), (error) => { throw failure(error); });
  };
  // A name the tree does not have still goes to the host, which answers as for any call of an
  // unknown (or withheld, or not allowed) tool; 'then' and Object's own names stay undefined, so a
  // group is never taken for a promise.
  const plain = (name) => typeof name !== 'string' || name === 'then' || name in Object.prototype;
  const unknown = (group, name) => tool('${UNKNOWN_TOOL_MARK}' + stringify([group, name]));
  const groupOf = (group, members) =>
    new Proxy(Object.freeze(members), { get: (target, name) => (Object.prototype.hasOwnProperty.call(target, name) ? target[name] : plain(name) ? undefined : unknown(group, name)) });
  const groups = {};
  for (const group of Object.keys(tree)) {
    const members = {};
    for (const name of Object.keys(tree[group])) members[name] = tool(tree[group][name]);
    groups[group] = groupOf(group, members);
  }
  const tools = new Proxy(Object.freeze(groups), { get: (target, name) => (Object.prototype.hasOwnProperty.call(target, name) ? target[name] : plain(name) ? undefined : groupOf(name, {})) });
  const show = (value) => {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return String(value.stack || value);
    try { const text = stringify(value); return text === undefined ? String(value) : text; } catch { return String(value); }
  };
  const printer = (level) => (...args) => log(level, args.map(show).join(' '));
  globalThis.tools = tools;
  globalThis.console = Object.freeze({ log: printer('log'), info: printer('info'), debug: printer('debug'), warn: printer('warn'), error: printer('error') });
  return (value) => { try { const text = stringify(value === undefined ? null : value); return typeof text === 'string' ? text : 'null'; } catch (error) { return { error: String(error) }; } };
})`;

const job = workerData as WorkerJob;
const port = parentPort!;
const send = (message: FromWorker) => port.postMessage(message);

const QuickJS = await newQuickJSWASMModuleFromVariant(variant as unknown as QuickJSSyncVariant);
const runtime = QuickJS.newRuntime();
runtime.setMemoryLimit(job.limits.memoryBytes);
runtime.setMaxStackSize(job.limits.stackBytes);
const deadline = Date.now() + job.limits.timeoutMs;
runtime.setInterruptHandler(shouldInterruptAfterDeadline(deadline));
const vm = runtime.newContext();

const logs: string[] = [];
let logBytes = 0;
let ended = false;

/** Ends the run, once: the host terminates this thread when it has the message. */
function fail(kind: RunFailure, message: string): void {
  if (ended) return;
  ended = true;
  send({ failed: { kind, message, logs } });
}

/** What an exception inside the engine was: out of memory, past the deadline, or the script's own. */
function failureOf(handle: QuickJSHandle): { kind: RunFailure; message: string } {
  const error = vm.dump(handle) as { name?: string; message?: string; stack?: string } | string | null;
  // The engine throws null where it cannot even make the error: out of memory.
  if (error === null || error === undefined) return { kind: 'memory', message: 'out of memory' };
  const name = typeof error === 'object' && error ? (error.name ?? 'Error') : 'Error';
  const message = typeof error === 'object' && error ? (error.message ?? String(error)) : String(error);
  if (/out of memory/i.test(message)) return { kind: 'memory', message };
  if (name === 'InternalError' && /interrupted/i.test(message)) return { kind: 'interrupted', message };
  if (name === 'SyntaxError') return { kind: 'syntax', message };
  // The bootstrap's own frames (where a tool's failure is made an Error) say nothing of the script.
  const frames =
    typeof error === 'object' && error?.stack ? error.stack.split('\n').filter((line) => line.trim() && !line.includes('mcpkit-bootstrap.js')) : [];
  const stack = frames.length ? `\n${frames.join('\n')}` : '';
  return { kind: 'error', message: `${name}: ${message}${stack}` };
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
    fail('output', `the script printed more than ${job.limits.maxOutputBytes} bytes`);
    return;
  }
  logs.push(line);
});

/** Runs what became ready inside the engine (after an answer came in); an error there ends the run. */
function drain(): void {
  const ran = runtime.executePendingJobs();
  if (ran.error) {
    const { kind, message } = failureOf(ran.error);
    ran.error.dispose();
    fail(kind, message);
  }
}

function start(context: QuickJSContext): void {
  const boot = context.unwrapResult(context.evalCode(BOOTSTRAP, 'mcpkit-bootstrap.js'));
  const tree = context.unwrapResult(context.evalCode(`(${JSON.stringify(job.tools)})`));
  const finish = context.unwrapResult(context.callFunction(boot, context.undefined, callHandle, logHandle, tree));
  boot.dispose();
  tree.dispose();
  const evaluated = context.evalCode(`(async () => {\n${job.code}\n})()`, 'script.js');
  if (evaluated.error) {
    const { kind, message } = failureOf(evaluated.error);
    evaluated.error.dispose();
    return fail(kind, message);
  }
  const main = evaluated.value;
  void context.resolvePromise(main).then((outcome) => {
    main.dispose();
    if (ended) return;
    if (outcome.error) {
      const { kind, message } = failureOf(outcome.error);
      outcome.error.dispose();
      return fail(kind, message);
    }
    const text = context.callFunction(finish, context.undefined, outcome.value);
    outcome.value.dispose();
    if (text.error) {
      const { kind, message } = failureOf(text.error);
      text.error.dispose();
      return fail(kind, message);
    }
    const result = context.dump(text.value) as string | { error: string };
    text.value.dispose();
    if (typeof result !== 'string') return fail('error', `The script's value cannot be made JSON: ${result.error}`);
    if (Buffer.byteLength(result) + logBytes > job.limits.maxOutputBytes)
      return fail('output', `the script's value and what it printed are more than ${job.limits.maxOutputBytes} bytes`);
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
