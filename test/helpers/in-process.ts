import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import type { Client } from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createLogger, parseLogLevel } from '../../src/core/logger.js';
import { startHttpServe, startStdioServe, type HttpServeHandle, type ServeOptions } from '../../src/mcp/run-serve.js';
import { parseServeArgs, serveOptionsOf } from '../../src/cli/args/serve-args.js';
import { cleanEnv } from './cli.js';
import { listeningClient, nothingHeard } from './serve.js';
import type { ReloadReport } from '../../src/app/live-config.js';

/**
 * `serve --http` in the test's own process: the same code `mcpkit serve --http` runs, without
 * a process start (most of a process test's time) and with its lines and reloads in reach. What a
 * process alone shows (argv, signals, exit codes, stdio framing) is left to the process tests.
 * Every server started here is closed after the test file, pass or fail.
 */
export interface InProcessServe extends HttpServeHandle {
  /** serve's own lines and its log (warnings and up), as they would reach stderr. */
  lines: string[];
  /** Every reload's report, in order. */
  reloads: ReloadReport[];
  /** Resolves with the next reload's report. */
  nextReload(): Promise<ReloadReport>;
}

const started = new Set<HttpServeHandle>();
const stdioServes = new Set<() => Promise<void>>();

/**
 * Closes every serve this file started and did not close, pass or fail. Registered for each test
 * file by test/helpers/serves-end.ts (a setup file): the files of a project share their modules
 * (vitest.config.ts, isolate: false), so a hook registered here, as this module is first
 * evaluated, would end only the first file's.
 */
export async function closeWhatTheFileServed(): Promise<void> {
  const closing = [...started].map((h) => h.close());
  started.clear();
  await Promise.allSettled([...closing, ...[...stdioServes].map((close) => close())]);
}

export async function serveHttpInProcess(config: string, flags: Partial<ServeOptions> = {}): Promise<InProcessServe> {
  const lines: string[] = [];
  const logger = createLogger('warn', (line) => void lines.push(line.trimEnd()));
  const handle = await startHttpServe(
    { configFlag: config, port: 0, version: '0.0.0-test', exposure: 'direct', ...flags, http: true },
    (line) => void lines.push(line),
    logger,
  );
  started.add(handle);
  const reloads: ReloadReport[] = [];
  const waiting: ((report: ReloadReport) => void)[] = [];
  handle.runtime.configs.live.reloaded.on((report) => {
    reloads.push(report);
    for (const resolve of waiting.splice(0)) resolve(report);
  });
  return {
    ...handle,
    lines,
    reloads,
    nextReload: () => new Promise((resolve) => waiting.push(resolve)),
    close: async () => {
      started.delete(handle);
      await handle.close();
    },
  };
}

/**
 * `serve --http` in this process as the command line runs it: the exposure the config says (not
 * serveHttpInProcess's `direct`) and a terminal's environment (cleanEnv), unless `flags` say otherwise.
 */
export function serveHttpAsCli(config: string, flags: Partial<ServeOptions> = {}): Promise<InProcessServe> {
  return serveHttpInProcess(config, { exposure: undefined, env: cleanEnv(), ...flags });
}

export interface InProcessStdio {
  /** --config; absent: serve finds its config as the process would (MCPKIT_CONFIG in `env`, then the folder). */
  config?: string;
  /** serve's whole environment (default: cleanEnv(), as a process test gives it). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** serve's other flags (view, readOnly, auditLog, ...); exposure is direct unless given. */
  flags?: Partial<ServeOptions>;
  /** Instead of config and flags: serve's command line after `serve`, read as the process reads it (nothing added). */
  argv?: string[];
  /** The client's name, when the helper makes the client. */
  name?: string;
  /** A client of the test's own (its capabilities, its handlers); else one is made, which approves every form with `approve`. */
  client?: Client;
  approve?: boolean;
  /** A ping written before the client's initialize (the spec allows one), as a client's first line. */
  pingFirst?: boolean;
}

/**
 * `mcpkit serve` over stdio, in the test's own process: the same runtime, stdio framing
 * (newline-delimited JSON, here on a pair of streams) and hot path as the process, with the real
 * SDK client, without a process start. What only a process shows (its pid and children, its
 * stderr as written, signals, a shell closing its stdin) stays with serveStdioClient
 * (helpers/serve.ts). Closing the client ends serve, as a client going away ends the process.
 */
export async function serveStdioInProcess(given: InProcessStdio | string) {
  const options: InProcessStdio = typeof given === 'string' ? { config: given } : given;
  const lines: string[] = [];
  const env = options.env ?? cleanEnv();
  const logger = createLogger(parseLogLevel(env.MCPKIT_LOG_LEVEL), (line) => void lines.push(line.trimEnd()));
  const toServe = new PassThrough();
  const fromServe = new PassThrough();
  const parsed = options.argv && parseServeArgs(options.argv);
  if (options.argv && !parsed) throw new Error(`not a plain serve command line: ${options.argv.join(' ')}`);
  const flags: ServeOptions = parsed
    ? serveOptionsOf(parsed, '0.0.0-test')
    : { ...(options.config !== undefined ? { configFlag: options.config } : {}), exposure: 'direct', version: '0.0.0-test', ...options.flags };
  const serve = await startStdioServe(
    { ...flags, env, cwd: options.cwd ?? tmpdir() },
    { input: toServe, output: fromServe },
    (line) => void lines.push(line.trimEnd()),
    logger,
  );
  const ended = serve.ended.catch((error: unknown) => void lines.push(`ended with ${String(error)}`));
  // A test's own client keeps its own handlers: what it heard is its to keep.
  const { client, heard } = options.client ? { client: options.client, heard: nothingHeard() } : listeningClient(options.name ?? 'in-process', options);
  // The client closing is the client going away, as a process's stdin closing is: serve ends.
  const closeClient = client.close.bind(client);
  const close = async () => {
    stdioServes.delete(close);
    await closeClient().catch(() => undefined);
    toServe.end();
    await ended;
  };
  client.close = close;
  stdioServes.add(close);
  if (options.pingFirst) toServe.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'ping-first', method: 'ping' })}\n`);
  await client.connect(new StdioServerTransport(fromServe, toServe));
  return { client, heard, lines, runtime: serve.runtime, stderr: () => lines.join('\n'), close };
}
