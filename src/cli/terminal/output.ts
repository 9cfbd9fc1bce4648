import type { ChalkInstance } from 'chalk';
import { printableLines } from '../../core/printable.js';
import type { WaitKind } from '../../app/runtime-options.js';
import type { ErrorObject } from '../../core/errors.js';
import { commandScope } from './command-scope.js';

/** `Error [CODE]: message` then the hint, for stderr. */
export function formatError(error: ErrorObject, color: ChalkInstance): string {
  // What an error quotes (a registry's answer, a server's stderr, a file name) may hold control characters.
  const lines = [`${color.red.bold('Error')} ${color.red(`[${error.code}]`)}: ${printableLines(error.message)}`];
  if (error.hint) lines.push(`${color.dim('Hint:')} ${printableLines(error.hint)}`);
  return `${lines.join('\n')}\n`;
}

/** Plain JSON for scripts: oclif's default colourises it, which breaks `jq` when FORCE_COLOR is set. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A long wait, said once on stderr (stdout stays the command's output); a server slow to answer only when `saysSlowServer`. */
export function sayWaiting(message: string, kind?: WaitKind): void {
  const scope = commandScope();
  if (kind === 'slow-server' && !saysSlowServer(scope.env, !scope.hosted && process.stderr.isTTY === true)) return;
  scope.io.err(`mcpkit: ${message}\n`);
}

/**
 * Whether a server slow to answer is said: to a person at a terminal, who would otherwise take
 * the wait for a hang; in a script's stderr only when MCPKIT_LOG_LEVEL asks for info or debug (a
 * wait that ends in a failure is reported by its error, with the limit it reached). Pure.
 */
export function saysSlowServer(env: Readonly<Record<string, string | undefined>>, stderrIsTty: boolean): boolean {
  return stderrIsTty || env.MCPKIT_LOG_LEVEL === 'info' || env.MCPKIT_LOG_LEVEL === 'debug';
}
