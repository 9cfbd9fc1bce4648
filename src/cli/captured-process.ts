import { AsyncLocalStorage } from 'node:async_hooks';
import { format } from 'node:util';

/** What a captured run sees as its process: its environment and folder; what it printed, and its exit code. */
export interface CapturedProcess {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly out: string[];
  readonly err: string[];
  exitCode: number | undefined;
}

const scope = new AsyncLocalStorage<CapturedProcess>();
let installed = false;
let baselineExitCode: typeof process.exitCode;

/** The captured run this code is part of, if any. */
export function capturedRun(): CapturedProcess | undefined {
  return scope.getStore();
}

/**
 * Runs `fn` as a process of its own would run, in this process: what it writes to stdout and
 * stderr (directly or through `console`, as oclif prints), and the exit code it sets through its
 * CliIo, are the run's; what it reads of `process.env` and `process.cwd()` is the run's; and its
 * streams are no terminal. Other runs may go on at the same time, each with its own. For programs
 * that run many command lines in a row (the tests, the conformance clients): starting a process
 * per line costs far more than the line. mcpkit itself never uses it.
 *
 * Not captured, so the callers keep such lines to processes: stdin, signals, `process.exit`, and a
 * relative path given to `fs` or to a child's working folder (mcpkit resolves its paths first).
 */
export async function runCaptured<T>(context: { env: NodeJS.ProcessEnv; cwd: string }, fn: () => Promise<T>): Promise<{ value: T; run: CapturedProcess }> {
  install();
  const run: CapturedProcess = { env: { ...context.env }, cwd: context.cwd, out: [], err: [], exitCode: undefined };
  try {
    return { value: await scope.run(run, fn), run };
  } finally {
    // oclif sets process.exitCode itself when a command's error reaches it; the host's stays as it was.
    process.exitCode = baselineExitCode;
  }
}

/** One process-wide change, made once and only by the first captured run: outside a run, everything passes through. */
function install(): void {
  if (installed) return;
  installed = true;
  baselineExitCode = process.exitCode;
  for (const [stream, key] of [
    [process.stdout, 'out'],
    [process.stderr, 'err'],
  ] as const) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const run = scope.getStore();
      if (!run) return write(chunk, ...rest);
      run[key].push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      if (done) queueMicrotask(done);
      return true;
    }) as typeof stream.write;
    // A captured stream is a pipe: no colour, no progress bar, no terminal width.
    for (const property of ['isTTY', 'columns'] as const) {
      let own = stream[property];
      Object.defineProperty(stream, property, {
        configurable: true,
        enumerable: true,
        get: () => (scope.getStore() ? undefined : own),
        set: (value) => void (own = value),
      });
    }
  }
  // oclif prints through console (a test runner's own console, in its workers): routed, not printed.
  const printers = { log: 'out', info: 'out', error: 'err', warn: 'err' } as const;
  const host = globalThis.console;
  for (const [method, key] of Object.entries(printers) as [keyof typeof printers, 'out' | 'err'][]) {
    const original = host[method].bind(host);
    host[method] = (...args: unknown[]) => {
      const run = scope.getStore();
      if (!run) return original(...args);
      run[key].push(`${format(...args)}\n`);
    };
  }
  const env = process.env;
  const target = () => scope.getStore()?.env ?? env;
  process.env = new Proxy(env, {
    get: (_, key) => Reflect.get(target(), key),
    set: (_, key, value) => Reflect.set(target(), key, String(value)),
    has: (_, key) => Reflect.has(target(), key),
    deleteProperty: (_, key) => Reflect.deleteProperty(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const found = Reflect.getOwnPropertyDescriptor(target(), key);
      return found && { ...found, configurable: true };
    },
  });
  const cwd = process.cwd.bind(process);
  process.cwd = () => scope.getStore()?.cwd ?? cwd();
}
