import type { Runtime } from '../../app/runtime.js';
import { daemonAllowed, viaDaemon, type DaemonAnswer } from './client.js';
import type { DaemonOperation } from './protocol.js';
import { sayWaiting } from '../../cli/terminal/output.js';
import { commandScope } from '../../cli/terminal/command-scope.js';

/**
 * The terminal's use of `mcpkit daemon`, the one road every command takes to it: the work goes to
 * the daemon of the command's config when one runs (and may do it); otherwise the command does it
 * itself, and under `daemon: auto` a daemon is started in the background for the next command (or
 * restarted, when the one running is of another build). A command the daemon itself runs for a
 * client (its scope names the daemon's runtime) does the work where it is: this is the only guard
 * against the daemon asking itself over its own socket, so no caller keeps one of its own.
 */
export async function throughDaemon(
  runtime: Runtime,
  operation: DaemonOperation,
  options: { noDaemon?: boolean; item?: (item: unknown) => void } = {},
): Promise<{ result: unknown } | undefined> {
  if (commandScope().daemon) return undefined;
  if (!daemonAllowed(runtime.env, options.noDaemon)) return undefined;
  const answer = await viaDaemon(
    runtime.configLocation.path,
    operation,
    {
      waiting: sayWaiting,
      // What a hook writes to stderr while the daemon runs the call (core/caller-stderr.ts).
      err: (text) => commandScope().io.err(text),
      ...(options.item ? { item: options.item } : {}),
      hosted: commandScope().hosted,
    },
    runtime.env,
    runtime.cwd,
  );
  if (answer.kind === 'done') return { result: answer.result };
  await startIfAuto(runtime, answer);
  return undefined;
}

async function startIfAuto(runtime: Runtime, answer: Exclude<DaemonAnswer, { kind: 'done' }>): Promise<void> {
  // Another environment is the command's own choice: the daemon stays as it is.
  if (answer.kind === 'bypass' && answer.reason !== 'build') return;
  const auto = await runtime.config().then(
    (config) => (config.daemon as { auto?: boolean }).auto === true,
    () => false, // the command itself reports a config that does not load
  );
  if (!auto) return;
  const { startInBackground } = await import('./launch.js');
  startInBackground(runtime.configLocation.path, runtime.env);
}
