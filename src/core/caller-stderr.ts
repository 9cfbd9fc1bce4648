import { AsyncLocalStorage } from 'node:async_hooks';
import { format } from 'node:util';
import { processShared } from './process-shared.js';

type Write = (text: string) => void;

// Each one for the process, whichever copy of this module asks (core/process-shared.ts): every
// hook chain routes through the same stores, and process.stderr.write is wrapped once, not once per copy.
/** The stderr of the person a request is for, while the daemon works on it. */
const caller = processShared('callerStderr', () => new AsyncLocalStorage<Write>());
/** Set while a hook's own code runs: what it writes to stderr is the caller's to read. */
const inHook = processShared('hookStderr', () => new AsyncLocalStorage<Write>());
/** Whether process.stderr and console are routed. */
const routing = processShared('stderrRouted', () => ({ routed: false }));

/**
 * A hook's stderr reaches the terminal that made the call: in the daemon, whose own stderr is its
 * log, a request gives its client's stderr (`withCallerStderr`), and `asHookCode` marks the hook's
 * code. Only writes made inside a hook are routed: the daemon's own lines stay in its log. One
 * process-wide change to `process.stderr.write`, made once, by the daemon only.
 */
export function routeHookStderrToCallers(): void {
  if (routing.routed) return;
  routing.routed = true;
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const write = inHook.getStore();
    if (!write) return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    write(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (done) queueMicrotask(done);
    return true;
  }) as typeof process.stderr.write;
  // console.error and console.warn are a hook's stderr too, whatever console the host has (a test
  // runner's does not write through process.stderr).
  for (const method of ['error', 'warn'] as const) {
    // eslint-disable-next-line no-console -- the routing itself: console is what is routed
    const print = console[method].bind(console);
    // eslint-disable-next-line no-console -- as above
    console[method] = (...args: unknown[]) => {
      const write = inHook.getStore();
      if (!write) return print(...args);
      write(`${format(...args)}\n`);
    };
  }
}

export function withCallerStderr<T>(write: Write | undefined, fn: () => T): T {
  return write ? caller.run(write, fn) : caller.exit(fn);
}

export function asHookCode<T>(fn: () => T): T {
  const write = caller.getStore();
  return write ? inHook.run(write, fn) : fn();
}
