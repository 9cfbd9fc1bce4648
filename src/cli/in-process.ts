import { Chalk } from 'chalk';
import { createRuntime, type Runtime } from '../app/runtime.js';
import type { CliIo } from './terminal/cli-io.js';
import { inScope } from './terminal/command-scope.js';
import { routeHookStderrToCallers, withCallerStderr } from '../core/caller-stderr.js';
import { runCommandLine } from './command-line.js';
import { saysSlowServer } from './terminal/output.js';

export interface InProcessRun {
  /** False: the line is one a process must run (see `processOnly`); nothing ran. */
  ran: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Lines that only a process of their own runs as a user's would: a server on stdin and stdout
 * (serve, filter run, the daemon itself, and the commands that start it detached from this
 * process's folder), oclif's plugins that write a shell's files, and answers read from stdin.
 */
function processOnly(argv: readonly string[]): boolean {
  const [first, second] = argv;
  if (first === 'serve' || first === 'autocomplete') return true;
  // oclif's own help writes to the process's stdout: a process shows it as a user sees it.
  if (first === 'help' || first === undefined || argv.includes('--help') || argv.includes('-h')) return true;
  if (first === 'filter' && second === 'run') return true;
  if (first === 'daemon' && (second === 'run' || second === 'start' || second === 'restart')) return true;
  return argv.some((a, i) => a === '-' || a === '--elicitation=ask' || (a === '--elicitation' && argv[i + 1] === 'ask'));
}

/**
 * A mcpkit command line run in this process, as a one-shot command in a process of its own would
 * run it, its output and exit code kept. For programs that run many commands in a row (the
 * conformance clients, the tests): a process start per command costs far more than the command.
 * `call` of an upstream tool and the commands generated from tools run as the daemon runs them
 * (runCommandLine, with a runtime of its own for the config the line and `env` name, closed
 * after); every other line runs through oclif as the built CLI runs it (dist/cli/main.js), in a
 * command scope of its own (command-scope.ts: its output, exit code, environment and folder, and
 * the runtimes its commands make, closed after as well: the next line finds what they wrote).
 * Colour is off, as on a pipe.
 */
export async function runInProcess(argv: readonly string[], options: { env: NodeJS.ProcessEnv; cwd: string }): Promise<InProcessRun> {
  const made: Runtime[] = [];
  const out: string[] = [];
  const err: string[] = [];
  let exitCode: number | undefined;
  const plain = new Chalk({ level: 0 });
  // Where this line prints and sets its exit code: its own, whatever else runs at the same time.
  const io: CliIo = {
    out: (text) => void out.push(text),
    err: (text) => void err.push(text),
    exitCode: (code) => void (exitCode = code),
    outColor: plain,
    errColor: plain,
  };
  const env = { ...options.env };
  try {
    // What a hook writes to stderr is the line's, as the daemon routes it (the one patch left: core/caller-stderr.ts).
    routeHookStderrToCallers();
    const ran = await withCallerStderr(io.err, () =>
      inScope({ io, env, cwd: options.cwd, hosted: true, made }, async () => {
        const runtimeFor = (configFlag: string | undefined) => {
          const runtime = createRuntime({
            ...(configFlag !== undefined ? { configFlag } : {}),
            env,
            cwd: options.cwd,
            surface: 'cli',
            // A hosted line's stderr is no terminal.
            waiting: (message, kind) => void ((kind !== 'slow-server' || saysSlowServer(env, false)) && io.err(`mcpkit: ${message}\n`)),
          });
          made.push(runtime);
          return runtime;
        };
        if (await runCommandLine(argv, { io, colors: { out: 0, err: 0 }, cwd: options.cwd, env, runtimeFor })) return { code: undefined };
        if (processOnly(argv)) return undefined;
        try {
          return { code: await oclifHere(argv) };
        } catch (error) {
          // What oclif's `handle` prints and exits on (a command it cannot find): a process shows it as
          // a user sees it, unless the line had printed already.
          if (out.length + err.length === 0) return undefined;
          throw error;
        }
      }),
    );
    if (!ran) return { ran: false, code: 0, stdout: '', stderr: '' };
    return { ran: true, code: ran.code ?? exitCode ?? 0, stdout: out.join(''), stderr: err.join('') };
  } finally {
    await Promise.allSettled(made.map((r) => r.close()));
  }
}

/** The line through oclif as bin/run.js runs it (this module is built beside it: dist/cli/). */
async function oclifHere(argv: readonly string[]): Promise<number | undefined> {
  const { runHere } = await import('./main.js');
  return runHere(new URL('../../bin/run.js', import.meta.url).href, [...argv]);
}
