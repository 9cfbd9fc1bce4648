import { Chalk } from 'chalk';
import { createRuntime, type Runtime } from '../app/runtime.js';
import { capturedRun, runCaptured } from './captured-process.js';
import type { CliIo } from './cli-io.js';
import { runCommandLine } from './command-line.js';
import { saysSlowServer } from './output.js';

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
 * captured run (captured-process.ts). Colour is off, as on a pipe.
 */
export async function runInProcess(argv: readonly string[], options: { env: NodeJS.ProcessEnv; cwd: string }): Promise<InProcessRun> {
  const made: Runtime[] = [];
  try {
    const { value: ran, run } = await runCaptured(options, async () => {
      const plain = new Chalk({ level: 0 });
      // Written where the captured run keeps what this line prints, and its exit code.
      const io: CliIo = {
        out: (text) => void process.stdout.write(text),
        err: (text) => void process.stderr.write(text),
        exitCode: (code) => void (capturedRun()!.exitCode = code),
        outColor: plain,
        errColor: plain,
      };
      const runtimeFor = (configFlag: string | undefined) => {
        const runtime = createRuntime({
          ...(configFlag !== undefined ? { configFlag } : {}),
          env: options.env,
          cwd: options.cwd,
          surface: 'cli',
          // A captured stderr is no terminal.
          waiting: (message, kind) => void ((kind !== 'slow-server' || saysSlowServer(options.env, false)) && io.err(`mcpkit: ${message}\n`)),
        });
        made.push(runtime);
        return runtime;
      };
      if (await runCommandLine(argv, { io, colors: { out: 0, err: 0 }, cwd: options.cwd, env: options.env, runtimeFor })) return { code: undefined };
      if (processOnly(argv)) return undefined;
      try {
        return { code: await oclifHere(argv) };
      } catch (error) {
        // What oclif's `handle` prints and exits on (a command it cannot find): a process shows it as
        // a user sees it, unless the line had printed already.
        const printed = capturedRun()!;
        if (printed.out.length + printed.err.length === 0) return undefined;
        throw error;
      }
    });
    if (!ran) return { ran: false, code: 0, stdout: '', stderr: '' };
    return { ran: true, code: ran.code ?? run.exitCode ?? 0, stdout: run.out.join(''), stderr: run.err.join('') };
  } finally {
    await Promise.allSettled(made.map((r) => r.close()));
  }
}

/** The line through oclif as bin/run.js runs it (this module is built beside it: dist/cli/). */
async function oclifHere(argv: readonly string[]): Promise<number | undefined> {
  const { runHere } = await import('./main.js');
  return runHere(new URL('../../bin/run.js', import.meta.url).href, [...argv]);
}
