import { flush, handle, run, settings, type Errors } from '@oclif/core';

// The CLI runs as built, whatever NODE_ENV says. Left to itself oclif looks for TypeScript
// sources whenever NODE_ENV is development or test (a developer's shell, every test run): it
// loaded the typescript module to read tsconfig.json and tried to register tsx, then ts-node, on
// every command (measured: `server list` 0.8-1.15 CPU-s against 0.3-0.45).
settings.enableAutoTranspile = false;

/**
 * Entry of the built CLI. Lives in the bundle (not in bin/) so that oclif itself is bundled with
 * the commands: loading @oclif/core from node_modules cost ~130 ms of module resolution here,
 * the bundled copy ~60 ms. `binUrl` is bin/run.js, from which oclif finds package.json.
 * As oclif's `execute`, but a usage error (a value not among an argument's options, in a plugin's
 * command such as `autocomplete fish`) ends with 2 as every other usage error does: oclif gives
 * those the default exit code, which is 1 here.
 */
export async function main(binUrl: string, args: string[] = process.argv.slice(2)): Promise<void> {
  try {
    await run(args, binUrl);
    flush();
  } catch (error) {
    await handle(asUsageError(error) as Errors.CLIError);
  }
}

/**
 * A command line run through oclif in this process, in a command scope of its own (src/cli/in-process.ts):
 * its exit code when oclif ends it (`this.exit`), else undefined (the code is what the command
 * set). Any other error is what `handle` would print and exit on: thrown, as a usage error where
 * it is one.
 */
export async function runHere(binUrl: string, args: string[]): Promise<number | undefined> {
  try {
    await run(args, binUrl);
    return undefined;
  } catch (error) {
    const ended = error as { code?: string; oclif?: { exit?: number } } | undefined;
    if (ended?.code === 'EEXIT') return ended.oclif?.exit ?? 1;
    throw asUsageError(error);
  }
}

/**
 * oclif's parse errors (not exported by name) are the CLIErrors that carry `parse`; a plugin's
 * come from its own copy of @oclif/core, not the bundled one, so they are known by shape. They
 * exit with 2, as every other usage error does.
 */
function asUsageError(error: unknown): unknown {
  const parseError = error as { parse?: unknown; oclif?: { exit?: number } } | undefined;
  if (parseError?.parse !== undefined && parseError.oclif?.exit === 1) parseError.oclif.exit = 2;
  return error;
}
