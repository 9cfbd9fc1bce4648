import { errorObject, exitCodeFor, type ErrorObject, type Words } from '../../core/errors.js';
import { kebab } from '../../tool/command-line.js';
import type { CliIo } from './cli-io.js';
import { commandScope } from './command-scope.js';
import { formatError, formatJson } from './output.js';

/**
 * The terminal's words for a command without a tool's field specs (../tool-runner.ts `cliWords`
 * gives a tool's): a field is the flag that sets it, and bad arguments point at the command's --help.
 * Apart from the tool runner so that a fast path that runs no tool (daemon-control-fast-path.ts)
 * loads none of the tools' schema code.
 */
export function commandWords(commandId: string | undefined, bin = 'mcpkit', field: (name: string) => string = (name) => `--${kebab(name)}`): Words {
  return { field, inputHint: `Run "${bin}${commandId ? ` ${commandId}` : ''} --help".` };
}

/**
 * The one way a command reports a failure, on every path (oclif's commands and the fast paths):
 * JSON on stdout under --json (scripts read one stream), else `Error [CODE]: message` and the
 * hint on stderr; the exit code from the error's code.
 */
export function reportFailure(error: unknown, options: { json: boolean; words: Words; io?: CliIo }): void {
  reportError(errorObject(error, options.words), options.json, options.io);
}

/** Reports an error object that is already in the terminal's words. */
export function reportError(published: ErrorObject, json: boolean, io: CliIo = commandScope().io): void {
  if (json) io.out(formatJson({ error: published }));
  else io.err(formatError(published, io.errColor));
  io.exitCode(exitCodeFor(published));
}
