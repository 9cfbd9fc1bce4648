import type { WaitKind } from '../../app/runtime-options.js';
import type { Runtime } from '../../app/runtime.js';
import { ToolError, isErrorCode, type ErrorCode } from '../../core/errors.js';

/**
 * What a terminal command and `mcpkit daemon` say to each other over the daemon's Unix socket:
 * one JSON line per message. The command sends one request; the daemon answers with lines
 * (items a streaming tool emits, waiting notices) and ends with a result, an error, or `bypass`
 * (the command then does its work itself). Pure: no I/O here.
 */
export type DaemonOperation =
  /** One of mcpkit's own tools, run as the terminal runs it (`runToolForCli`), with the raw input. */
  | { op: 'tool'; tool: string; input: unknown; stream: boolean }
  /** `mcpkit call` of an upstream tool: the arguments as the command line gave them, and its --view. */
  | { op: 'call-upstream'; name: string; base: Record<string, unknown>; pairs: string[]; view?: string }
  /** `mcpkit tools`: the upstream servers' part of the listing (names already listed are left out). */
  | { op: 'list-upstream'; skip: string[] }
  /**
   * A whole command line (call, retrieve, view tools, server test), parsed and printed by the
   * daemon into the client's streams, in its colours: the client loads nothing but this module.
   */
  | { op: 'command'; argv: string[]; colors: { out: ColorLevel; err: ColorLevel }; errTty: boolean }
  /** `mcpkit call NAME --task`: the call started in the daemon, in the background; answered with its task. */
  | { op: 'task-start'; name: string; base: Record<string, unknown>; pairs: string[]; view?: string }
  /** `mcpkit tasks get|cancel ID` and `tasks list`. */
  | { op: 'task'; action: 'get' | 'cancel' | 'list'; id?: string }
  | { op: 'status' }
  | { op: 'stop' };

/** What a daemon says of itself (`status`), as `mcpkit daemon status` shows it. */
export interface DaemonStatus {
  pid: number;
  build: string;
  config: string;
  socket: string;
  started: string;
  uptime_s: number;
  idle_minutes: number;
  requests: number;
  upstreams: ReturnType<Runtime['serving']['upstreamStatus']>;
  cache: Awaited<ReturnType<Runtime['cacheSummary']>>;
  memory: { rss_bytes: number; heap_used_bytes: number };
}

export interface DaemonRequest {
  /** The client's version and build (core/version.ts): a daemon of another build answers bypass. */
  build: string;
  /** Where the command runs and its environment: a tool sees them as it would in the command's own process. */
  cwd: string;
  env: Record<string, string>;
  /** The config file the command uses, as it found it (before symlinks): a daemon of another answers bypass. */
  config?: string;
  operation: DaemonOperation;
}

export type ColorLevel = 0 | 1 | 2 | 3;

export type DaemonMessage =
  | { type: 'item'; item: unknown }
  /** What a `command` prints, in order, on the client's stdout or stderr. */
  | { type: 'out'; text: string }
  | { type: 'err'; text: string }
  /** `kind`: what the wait is, where the client treats it apart (a server slow to answer). */
  | { type: 'waiting'; message: string; kind?: WaitKind }
  | { type: 'result'; result: unknown }
  | { type: 'error'; error: WireError }
  | { type: 'bypass'; reason: BypassReason; detail: string };

/**
 * build, environment: this daemon must not do the work; config: the config file cannot be used as
 * it is now (the command reports why); local: `call` of one of mcpkit's own tools (the command
 * runs it as it runs any tool); usage: a command line for oclif (help, a typo, a flag the quick
 * parser leaves to oclif), which parses it and then uses the daemon for the work.
 */
export type BypassReason = 'build' | 'environment' | 'config' | 'local' | 'usage';

/**
 * Whether the daemon can run a whole command line for its client (`op: command`): not one that
 * needs the client's own process (its stdin, as `-` or an elicitation asked at its terminal), a
 * task (`call --task` makes the daemon keep one, through its own operation), or help. Those the
 * client runs itself, without asking the daemon first. Pure.
 */
export function daemonRunsLine(argv: readonly string[]): boolean {
  const before = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  return !before.some((a) => a === '-' || a === '--help' || a === '-h' || a === '--task' || a === '--elicitation' || a.startsWith('--elicitation='));
}

/** An error as it crosses the socket: a ToolError with its words still open (field markers), secrets already hidden. */
export type WireError = { code: ErrorCode; message: string; details?: Record<string, unknown>; hint?: string } | { unexpected: string };

export function toWire(error: unknown, hide: (text: string) => string, hideDeep: <T>(value: T) => T): WireError {
  if (error instanceof ToolError) {
    return {
      code: error.code,
      message: hide(error.message),
      ...(error.details !== undefined ? { details: hideDeep(error.details) } : {}),
      ...(error.hint !== undefined ? { hint: hide(error.hint) } : {}),
    };
  }
  return { unexpected: hide(error instanceof Error ? error.message : String(error)) };
}

/** The error the command would have thrown had it done the work itself (the reporter gives it the terminal's words). */
export function fromWire(wire: WireError): Error {
  if ('unexpected' in wire) return new Error(wire.unexpected);
  const code: ErrorCode = isErrorCode(wire.code) ? wire.code : 'INTERNAL';
  return new ToolError(code, wire.message, {
    ...(wire.details !== undefined ? { details: wire.details } : {}),
    ...(wire.hint !== undefined ? { hint: wire.hint } : {}),
  });
}

/** What of a config decides which of the caller's variables its daemon must share (McpkitConfig's). */
export interface WatchedConfig {
  references?: { readonly all: readonly string[] };
  mcp_servers: Readonly<Record<string, { inherit_env?: boolean | readonly string[]; command?: string; disabled?: boolean }>>;
}

/** Variables no work depends on: they differ between any two shells (and how much a command logs is its own). */
const VOLATILE = new Set(['_', 'PWD', 'OLDPWD', 'SHLVL', 'MCPKIT_NO_DAEMON', 'MCPKIT_CONFIG', 'MCPKIT_TEST_RUN', 'MCPKIT_LOG_LEVEL']);

/**
 * The variables a daemon's answer depends on, so that a caller whose values differ does the work
 * itself: those the config's placeholders name (read from the parsed file, so an escaped
 * `\u0024{VAR}` counts), mcpkit's own settings (MCPKIT_*, and the XDG folders where it keeps its
 * state), and what the config's stdio servers are given (the base environment, the names their
 * inherit_env lists; with inherit_env: true, everything). Returns "all" in that last case. Pure.
 */
export function watchedVariables(config: WatchedConfig): { names: ReadonlySet<string>; all: boolean } {
  const names = new Set(config.references?.all ?? []);
  let all = false;
  for (const server of Object.values(config.mcp_servers)) {
    if (server.command === undefined || server.disabled === true) continue;
    // A stdio server is given the base environment: only then do PATH, TZ or LANG change an answer.
    for (const name of BASE_FOR_SERVERS) names.add(name);
    if (server.inherit_env === true) all = true;
    else if (Array.isArray(server.inherit_env)) for (const name of server.inherit_env) names.add(name);
  }
  return { names, all };
}

/** What every stdio server is given of its parent's environment (config/server-env.ts BASE_VARIABLES). */
const BASE_FOR_SERVERS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'TMPDIR', 'TZ'];

/**
 * The variables whose values differ between the daemon and a client, among those its work depends
 * on (watchedVariables; XDG_* and MCPKIT_* always, LC_* with LANG). A daemon that read its config, or
 * started a server, with other values would answer for another environment than the client's.
 */
export function differingVariables(
  daemon: Readonly<Record<string, string | undefined>>,
  client: Readonly<Record<string, string | undefined>>,
  watched: { names: ReadonlySet<string>; all: boolean },
): string[] {
  const candidates = new Set([...Object.keys(daemon), ...Object.keys(client)]);
  const relevant = (name: string) =>
    !VOLATILE.has(name) &&
    (watched.all || watched.names.has(name) || name.startsWith('MCPKIT_') || name.startsWith('XDG_') || (name.startsWith('LC_') && watched.names.has('LANG')));
  return [...candidates].filter((name) => relevant(name) && (daemon[name] ?? '') !== (client[name] ?? '')).sort();
}

/** The most a line on the daemon's socket may hold before it ends (a request: argv, env and cwd). */
export const MAX_REQUEST_LINE_BYTES = 1024 * 1024;

/** A peer that sent what is not the protocol: a line that is not JSON, or one over the limit. */
export class BrokenLine extends Error {}

/**
 * Splits a stream of text into JSON lines. A line that is not JSON, or a line longer than
 * `maxBytes` (counted as it arrives, never held past it), is a broken peer: `onBroken` is told
 * once and nothing more is read. Each chunk is searched once, so a long line costs linear time.
 */
export function lineReader(
  onMessage: (message: unknown) => void,
  options: { maxBytes?: number; onBroken?: (error: BrokenLine) => void } = {},
): (chunk: string) => void {
  const max = options.maxBytes ?? Infinity;
  let pending: string[] = [];
  let pendingLength = 0;
  let broken = false;
  const fail = (why: string) => {
    broken = true;
    pending = [];
    const error = new BrokenLine(why);
    if (options.onBroken) options.onBroken(error);
    else throw error;
  };
  return (chunk) => {
    if (broken) return;
    let start = 0;
    for (let end = chunk.indexOf('\n'); end >= 0; end = chunk.indexOf('\n', start)) {
      const piece = chunk.slice(start, end);
      start = end + 1;
      if (pendingLength + piece.length > max) return fail(`a line over ${max} bytes`);
      const line = pending.length ? pending.join('') + piece : piece;
      pending = [];
      pendingLength = 0;
      if (line.trim() === '') continue;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        return fail('a line that is not JSON');
      }
      onMessage(message);
      if (broken) return;
    }
    const rest = chunk.slice(start);
    if (pendingLength + rest.length > max) return fail(`a line over ${max} bytes`);
    if (rest) {
      pending.push(rest);
      pendingLength += rest.length;
    }
  };
}

export function encodeLine(message: DaemonMessage | DaemonRequest): string {
  return `${JSON.stringify(message)}\n`;
}
