// How the conformance clients run mcpkit: each command line in the process that runs the client
// (dist/cli/in-process.js: server add, server login, server test, tools, call, as the built CLI
// runs them), else as a process of its own, as a user's shell would (a line that reads stdin). A
// scenario is four to six commands; a process each was most of the suite's time.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '../../bin/run.js');
const { runInProcess } = await import(join(here, '../../dist/cli/in-process.js'));

/**
 * A function that runs `mcpkit ARGS...` with `env` in `cwd` and returns { status, stdout, stderr },
 * saying each line and what it printed through `say` (default: this process's stderr).
 */
export function mcpkitWith(env, { cwd = process.cwd(), say = (text) => process.stderr.write(text) } = {}) {
  return async (...args) => {
    const inProcess = await runInProcess(args, { env, cwd });
    const r = inProcess.ran
      ? { status: inProcess.code, stdout: inProcess.stdout, stderr: inProcess.stderr }
      : spawnSync(process.execPath, [bin, ...args], { env, cwd, encoding: 'utf8', timeout: 60_000 });
    say(`$ mcpkit ${args.join(' ')} -> ${r.status}${inProcess.ran ? ' (in process)' : ''}\n${r.stdout}${r.stderr}`);
    return r;
  };
}
