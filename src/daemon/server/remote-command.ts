import { Chalk } from 'chalk';
import type { Runtime } from '../../app/runtime.js';
import type { CliIo } from '../../cli/terminal/cli-io.js';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCommandLine } from '../../cli/command-line.js';
import { inScope } from '../../cli/terminal/command-scope.js';
import { packageRoot } from '../../core/version.js';
import { daemonRunsLine, type ColorLevel } from '../client/protocol.js';

/**
 * A command line a client sent whole (`DaemonOperation` command), run as a command run in the
 * client's process would be, its output written to the client's streams, in one round trip: the
 * lines of warm tools and `call` with the quick parser (cli/command-line.ts), and every other line
 * it may run through oclif, in a command scope that is the client's (its streams, environment and
 * folder; cli/terminal/command-scope.ts) and whose runtime is this daemon's. Returns false for a line this
 * does not take (one for another config, or one oclif itself could not start): the client then
 * runs it the usual way.
 */
export async function runRemoteCommand(
  runtime: Runtime,
  argv: readonly string[],
  ownConfig: string,
  options: { io: CliIo; colors: { out: ColorLevel; err: ColorLevel }; cwd: string; env: NodeJS.ProcessEnv; signal: AbortSignal },
): Promise<boolean> {
  // A --config naming another file than this daemon's (the client guessed it from the command line) is not ours to run.
  const runtimeFor = (config: string | undefined) => (config === undefined || config === ownConfig ? runtime : undefined);
  const { io, env, cwd } = options;
  // The client's scope, naming this daemon's runtime: the work is done here, never sent to the daemon again.
  return inScope({ io, env, cwd, hosted: true, daemon: runtime }, async () => {
    if (await runCommandLine(argv, { ...options, runtimeFor, takes: (tool) => tool.warm === true })) return true;
    if (!daemonRunsLine(argv) || runtimeFor(configNamed(argv, cwd)) === undefined) return false;
    try {
      // In the daemon's script, oclif and the commands it loads are the script's own modules
      // (scripts/build-scripts.mjs bundledModulesPlugin): one copy of each module in the process.
      const { runHere } = await import('../../cli/main.js');
      const code = await runHere(pathToFileURL(join(packageRoot(), 'bin', 'run.js')).href, [...argv]);
      if (code !== undefined) io.exitCode(code);
      return true;
    } catch {
      // What oclif's own handler prints (a command it cannot find): the client's oclif says it.
      return false;
    }
  });
}

/** The config file a line names with --config, resolved from where it runs. */
function configNamed(argv: readonly string[], cwd: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') break;
    if (argv[i] === '--config' && argv[i + 1] !== undefined) return resolve(cwd, argv[i + 1]!);
    if (argv[i]!.startsWith('--config=')) return resolve(cwd, argv[i]!.slice('--config='.length));
  }
  return undefined;
}

/**
 * A client's streams, reached through its connection. What is printed in one turn of the event
 * loop goes as one message per stream (a search streaming its matches would otherwise send one
 * message per line); `flush` sends what is left, before the result.
 */
export function clientIo(
  send: (stream: 'out' | 'err', text: string) => void,
  colors: { out: ColorLevel; err: ColorLevel },
): CliIo & { code: number; flush(): void } {
  let pending: { stream: 'out' | 'err'; text: string } | undefined;
  let scheduled = false;
  const flush = () => {
    if (pending) send(pending.stream, pending.text);
    pending = undefined;
  };
  const put = (stream: 'out' | 'err', text: string) => {
    // Order across the two streams is kept: a switch sends what came before it.
    if (pending && pending.stream !== stream) flush();
    pending = { stream, text: (pending?.text ?? '') + text };
    if (pending.text.length >= 64 * 1024) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        flush();
      });
    }
  };
  const io = {
    code: 0,
    out: (text: string) => put('out', text),
    err: (text: string) => put('err', text),
    exitCode: (code: number) => void (io.code = code),
    outColor: new Chalk({ level: colors.out }),
    errColor: new Chalk({ level: colors.err }),
    flush,
  };
  return io;
}
