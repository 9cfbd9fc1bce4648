import { Chalk } from 'chalk';
import type { Runtime } from '../../app/runtime.js';
import type { CliIo } from '../../cli/cli-io.js';
import { runCommandLine } from '../../cli/command-line.js';
import type { ColorLevel } from '../client/protocol.js';

/**
 * A command line a client sent whole (`DaemonOperation` command), run as a command run in this
 * process would be (cli/command-line.ts), its output written to the client's streams: the lines of
 * warm tools and `call`, for this daemon's config. Returns false for a line this does not take:
 * the client then runs it the usual way.
 */
export function runRemoteCommand(
  runtime: Runtime,
  argv: readonly string[],
  ownConfig: string,
  options: { io: CliIo; colors: { out: ColorLevel; err: ColorLevel }; cwd: string; env: NodeJS.ProcessEnv; signal: AbortSignal },
): Promise<boolean> {
  // A --config naming another file than this daemon's (the client guessed it from the command line) is not ours to run.
  return runCommandLine(argv, {
    ...options,
    runtimeFor: (config) => (config === undefined || config === ownConfig ? runtime : undefined),
    takes: (tool) => tool.warm === true,
  });
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
