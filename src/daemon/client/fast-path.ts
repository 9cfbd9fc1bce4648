import { locateConfig } from '../../config/locate.js';
import { colorLevel } from '../../cli/terminal/color.js';
import { daemonAllowed, viaDaemon } from './client.js';
import { daemonRunsLine } from './protocol.js';

/**
 * A terminal command that mcpkit daemon runs for it, when one runs for its config: the command
 * line goes over the socket as it is, and what comes back is written to stdout and stderr, with
 * the exit code. Nothing else is loaded (no oclif, no tool definitions), which is most of a warm
 * command's time. Returns false (the command runs the usual way) when no daemon runs, it is
 * bypassed (--no-daemon, MCPKIT_NO_DAEMON), or the line needs this process (daemonRunsLine).
 */
export async function fastDaemon(argv: readonly string[]): Promise<boolean> {
  // bin/run.js sends only the commands the daemon runs (call, retrieve, tools, code, view tools, server test); it decides which lines it takes.
  const before = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  if (!daemonRunsLine(argv) || !daemonAllowed(process.env, before.includes('--no-daemon'))) return false;
  const location = locateConfig({ flag: configFlag(before), env: process.env, cwd: process.cwd() });
  const colors = { out: colorLevel(process.env, process.stdout), err: colorLevel(process.env, process.stderr) };
  const answer = await viaDaemon(
    location.path,
    { op: 'command', argv: [...argv], colors, errTty: process.stderr.isTTY === true },
    { out: (text) => void process.stdout.write(text), err: (text) => void process.stderr.write(text) },
  );
  if (answer.kind !== 'done') return false;
  process.exitCode = (answer.result as { exitCode: number }).exitCode;
  return true;
}

function configFlag(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--config') return argv[i + 1];
    if (argv[i]!.startsWith('--config=')) return argv[i]!.slice('--config='.length);
  }
  return undefined;
}
