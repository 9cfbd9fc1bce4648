/**
 * What code mode's host (./sandbox.ts, serve's thread) and its worker (./sandbox-worker.ts) say to
 * each other. Everything that crosses is a string or a number: no object of either side reaches
 * the other, so a script in the sandbox holds nothing of the host. Pure types.
 */

/** The script's `tools`: group (a server, or `mcpkit`) -> name in it -> the published name a call goes to. */
export type ToolTree = Record<string, Record<string, string>>;

export interface RunLimits {
  /** Wall time of the whole run, tool calls included. */
  timeoutMs: number;
  /** When the run ends (Date.now() of the host's deadline): `sleep` may not pass it. */
  deadline: number;
  /** Heap of the script's engine. */
  memoryBytes: number;
  /** Stack of the script's engine (deep recursion ends the run, never the host). */
  stackBytes: number;
  /** Bytes of what the script prints and returns, together. */
  maxOutputBytes: number;
}

export interface WorkerJob {
  /** Which run this is: every message of the run names it, and neither side hears another run's. */
  run: number;
  /** JavaScript (types already stripped): the body of an async function, whose return value is the result. */
  code: string;
  tools: ToolTree;
  limits: RunLimits;
}

/** A thread's workerData: QuickJS's WebAssembly, compiled once by the host and shared by every thread (./engine-module.ts). */
export interface WorkerSetup {
  engine?: WebAssembly.Module;
}

/**
 * What a run that returned left in its thread, which decides whether the thread may run the next
 * script (./sandbox-threads.ts): calls still unanswered, sleeps still pending (each holds the
 * run's engine), and the size its engine's memory grew to.
 */
export interface RunLeftovers {
  calls: number;
  sleeps: number;
  memoryBytes: number;
}

/** A failure as the script's `Error` sees it: mcpkit's error object, as JSON. */
export interface CallFailure {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  hint?: string;
}

/**
 * A call of a name the tree does not have: this mark and the JSON of [group, name]. Not NUL: the
 * engine's strings reach the host through C strings, which end there.
 */
export const UNKNOWN_TOOL_MARK = '#unknown#';

export type FromWorker = { run: number } &
  /** A tool call the script made: `name` as the tree has it (else UNKNOWN_TOOL_MARK...), `args` is JSON. */
  (
    | { call: { id: number; name: string; args: string } }
    /** The script's return value (as JSON) and what it printed, and what the run left in the thread. */
    | { done: { result: string; logs: string[]; left: RunLeftovers } }
    /** Why the run ended without a value; a failure the host made (a tool call's, sleep's) that the script did not catch, with its own code. */
    | { failed: { kind: RunFailure; message: string; logs: string[]; stack?: string; own?: CallFailure } }
  );

export type WorkerAnswer = { id: number; ok: true; value: string } | { id: number; ok: false; error: string };

/** A run for the thread (one at a time), or an answer to a call of a run, which the thread takes only for the run under way. */
export type ToWorker = { job: WorkerJob } | { run: number; answer: WorkerAnswer };

/**
 * error: the script threw (or its promise rejected); syntax: it does not parse; memory: it used
 * more than its heap; interrupted: it ran past its deadline; output: it printed more than it may.
 */
export type RunFailure = 'error' | 'syntax' | 'memory' | 'interrupted' | 'output';
