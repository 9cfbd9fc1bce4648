import { AsyncLocalStorage } from 'node:async_hooks';
import type { Runtime } from '../../app/runtime.js';
import { processShared } from '../../core/process-shared.js';
import { processIo, type CliIo } from './cli-io.js';

/**
 * What a terminal command runs with: where it prints (and sets its exit code), its environment and
 * its working folder. A process's own command has the process's (`processScope`); a host that runs
 * command lines in its own process (the tests' harness, cli/in-process.ts) gives each line a scope
 * of its own with `inScope`, and every command reads it from here, never from `process`. Nothing
 * process-wide is replaced: a line run in a scope leaves the host as it was.
 */
export interface CommandScope {
  io: CliIo;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Run inside another program's process: its signals, its terminal and its exit are not the command's. */
  hosted: boolean;
  /** Run by mcpkit daemon for a client: the daemon's warm runtime does the work (never the daemon again, over its socket). */
  daemon?: Runtime;
  /**
   * Where the commands of a line runInProcess runs (cli/in-process.ts) put the runtimes they make,
   * which it closes when the line ends. A process's end ends its own; the daemon's lines use its runtime.
   */
  made?: Runtime[];
}

// One for the process, whichever copy of this module asks (core/process-shared.ts): the daemon sets
// a client's scope and the commands oclif runs read it, and a copy of its own, the daemon's scope
// unseen, was a line that asked the daemon again (daemon/client/use.ts `throughDaemon`).
const scopes = processShared('commandScopes', () => new AsyncLocalStorage<CommandScope>());

/** This process's own scope: its streams, environment and folder. */
export function processScope(): CommandScope {
  return { io: processIo(), env: process.env, cwd: process.cwd(), hosted: false };
}

/** The scope of the command running here: the one a host gave it, else the process's. */
export function commandScope(): CommandScope {
  return scopes.getStore() ?? processScope();
}

/** Runs `fn` as a command of `scope`: everything it prints, reads of its environment and folder, and its exit code are the scope's. */
export function inScope<T>(scope: CommandScope, fn: () => Promise<T>): Promise<T> {
  return scopes.run(scope, fn);
}
