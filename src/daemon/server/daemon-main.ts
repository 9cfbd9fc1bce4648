import { errorObject } from '../../core/errors.js';
import { version } from '../../core/version.js';
import { runDaemon, type CodeCacheKeeper } from './server.js';

/**
 * `mcpkit daemon run --config <path>` without oclif, what `daemon start` (and `daemon: auto`)
 * starts (./entry.ts loads this from its script form, `dist/cli/daemon-server.script.cjs`). The
 * line is always the one launch.ts writes, so there is nothing to parse that oclif would parse
 * better; loading oclif, its plugins and the command table was a tenth of a short-lived daemon's
 * CPU, paid by every user's first command. `mcpkit daemon run` (oclif) stays for a person running
 * it in the foreground. `cache` is what keeps the script's code cache (cli/cached-script.ts).
 */
export async function runDaemonEntry(argv: readonly string[], cache: CodeCacheKeeper): Promise<void> {
  const at = argv.indexOf('--config');
  const configPath = at >= 0 ? argv[at + 1] : undefined;
  if (!configPath) {
    process.stderr.write('Error [INVALID_INPUT]: the daemon entry takes --config <path>.\nHint: Run "mcpkit daemon run --config <path>" instead.\n');
    process.exit(2);
  }
  try {
    await runDaemon({ configPath, version: version(), cache });
  } catch (error) {
    // runDaemon reports what fails once it runs; this is what fails before (a config that cannot be located).
    const e = errorObject(error);
    process.stderr.write(`Error [${e.code}]: ${e.message}${e.hint ? `\nHint: ${e.hint}` : ''}\n`);
    process.exit(1);
  }
}
