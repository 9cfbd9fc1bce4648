import { Chalk } from 'chalk';
import { createRuntime, type Runtime } from '../app/runtime.js';
import type { CliIo } from './cli-io.js';
import { runCommandLine } from './command-line.js';
import { saysSlowServer } from './output.js';

export interface InProcessRun {
  /** False: the line is one this does not take (see runCommandLine); nothing ran. */
  ran: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A mcpkit command line run in this process, as a one-shot command in a process of its own would
 * run it (a runtime of its own for the config the line and `env` name, closed after), its output
 * and exit code kept. For programs that run many commands in a row (the conformance clients, the
 * tests): a process start per command costs far more than the command. Colour is off.
 */
export async function runInProcess(argv: readonly string[], options: { env: NodeJS.ProcessEnv; cwd: string }): Promise<InProcessRun> {
  const out: string[] = [];
  const err: string[] = [];
  let code = 0;
  const plain = new Chalk({ level: 0 });
  const io: CliIo = {
    out: (text) => void out.push(text),
    err: (text) => void err.push(text),
    exitCode: (c) => void (code = c),
    outColor: plain,
    errColor: plain,
  };
  const made: Runtime[] = [];
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
  try {
    const ran = await runCommandLine(argv, { io, colors: { out: 0, err: 0 }, cwd: options.cwd, env: options.env, runtimeFor });
    return { ran, code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    await Promise.allSettled(made.map((r) => r.close()));
  }
}
