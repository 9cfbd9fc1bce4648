import { ToolError, isErrorCode, type ErrorCode } from '../core/errors.js';

/**
 * What a terminal command and `mcpkit daemon` say to each other over the daemon's Unix socket:
 * one JSON line per message. The command sends one request; the daemon answers with lines
 * (items a streaming tool emits, waiting notices) and ends with a result, an error, or `bypass`
 * (the command then does its work itself). Pure: no I/O here.
 */
export type DaemonOperation =
  /** One of mcpkit's own tools, run as the terminal runs it (`runToolForCli`), with the raw input. */
  | { op: 'tool'; tool: string; input: unknown; stream: boolean }
  /** `mcpkit call` of an upstream tool: the arguments as the command line gave them. */
  | { op: 'call-upstream'; name: string; base: Record<string, unknown>; pairs: string[] }
  /** `mcpkit tools`: the upstream servers' part of the listing (names already listed are left out). */
  | { op: 'list-upstream'; skip: string[] }
  /**
   * A whole command line (call, retrieve, view tools, server test), parsed and printed by the
   * daemon into the client's streams, in its colours: the client loads nothing but this module.
   */
  | { op: 'command'; argv: string[]; colors: { out: ColorLevel; err: ColorLevel } }
  | { op: 'status' }
  | { op: 'stop' };

export interface DaemonRequest {
  /** The client's version and build (core/version.ts): a daemon of another build answers bypass. */
  build: string;
  /** Where the command runs and its environment: a tool sees them as it would in the command's own process. */
  cwd: string;
  env: Record<string, string>;
  operation: DaemonOperation;
}

export type ColorLevel = 0 | 1 | 2 | 3;

export type DaemonMessage =
  | { type: 'item'; item: unknown }
  /** What a `command` prints, in order, on the client's stdout or stderr. */
  | { type: 'out'; text: string }
  | { type: 'err'; text: string }
  | { type: 'waiting'; message: string }
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

/** The variables a config's text refers to (`${VAR}`, `${VAR:-default}`): the environment the daemon's config depends on. */
export function configVariables(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(/\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)/g)) if (!match[1]) names.add(match[2]!);
  return [...names].sort();
}

/**
 * The variables whose values differ between the daemon and a client, among those its work depends
 * on: the config's own, and mcpkit's settings (MCPKIT_*). A daemon that read its config with other
 * values would answer another config than the client's: the client does the work itself.
 */
export function differingVariables(
  daemon: Readonly<Record<string, string | undefined>>,
  client: Readonly<Record<string, string | undefined>>,
  configText: string,
): string[] {
  const watched = new Set([...configVariables(configText), ...[...Object.keys(daemon), ...Object.keys(client)].filter((k) => k.startsWith('MCPKIT_'))]);
  // Which daemon it is and whether to use one are the client's own business.
  for (const own of ['MCPKIT_NO_DAEMON', 'MCPKIT_CONFIG']) watched.delete(own);
  return [...watched].filter((name) => (daemon[name] ?? '') !== (client[name] ?? '')).sort();
}

/** Splits a stream of text into JSON lines; a line that is not JSON is a broken peer. */
export function lineReader(onMessage: (message: unknown) => void): (chunk: string) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      if (line.trim() !== '') onMessage(JSON.parse(line));
    }
  };
}

export function encodeLine(message: DaemonMessage | DaemonRequest): string {
  return `${JSON.stringify(message)}\n`;
}
