import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, runCli, runCommand, tempDir, type RunResult } from './cli.js';
import { daemonRuntimeDir, type Finished } from './daemons.js';
import { SERVERS } from './upstreams.js';

/**
 * A config and a runtime folder of the test's own. The tests run a few at a time (each is mostly
 * waiting on the processes it starts), so each ends its own daemons when it finishes, pass or
 * fail, through its own context's hook.
 */
export function daemonTestbed(finished: Finished, config: string, extra: Record<string, string> = {}) {
  const dir = tempDir('mcpkit-test-daemon-');
  const runtimeDir = daemonRuntimeDir(finished, dir);
  const file = join(dir, 'mcpkit.yaml');
  writeFileSync(file, config);
  const env = cleanEnv({ XDG_RUNTIME_DIR: runtimeDir, MCPKIT_CONFIG: file, ...extra });
  const mcpkit = (args: string[], options: { cwd?: string; entry?: string; env?: NodeJS.ProcessEnv } = {}) =>
    runCli(args, { env: options.env ?? env, cwd: options.cwd ?? dir, ...(options.entry ? { entry: options.entry } : {}) });
  /**
   * The same line with --no-daemon, the command doing its own work: through oclif, in this
   * process (the warm line is the process under test; its daemon client lives in bin/run.js).
   */
  const alone = (args: string[], options: { cwd?: string } = {}) => runCommand([...args, '--no-daemon'], { env, cwd: options.cwd ?? dir });
  /**
   * A line whose own work is the point, not the daemon's hop (daemon status, stop and list, a
   * config edit), run in this process: it is a client of the daemon as the process would be, and
   * bin/run.js hands none of these to the daemon.
   */
  const here = (args: string[]) => runCommand(args, { env, cwd: dir });
  // What the daemon says of itself, asked in this process (the daemon is the process under test, not this command).
  const status = async () => JSON.parse((await here(['daemon', 'status', '--json'])).stdout) as DaemonState;
  return { dir, file, env, runtimeDir, mcpkit, here, alone, status };
}

export interface DaemonState {
  running: boolean;
  socket: string;
  other_build?: boolean;
  status?: { pid: number; requests: number; upstreams: { name: string; state: string; tools?: number }[]; uptime_s: number; memory: { rss_bytes: number } };
}

/** A config of server-everything alone. */
export const EVERYTHING = `mcp_servers:\n  everything: ${JSON.stringify(SERVERS.everything)}\n`;

/**
 * What a person sees: stdout, stderr and the exit code. Timings differ between any two runs (a
 * search's duration_ms, a server test's milliseconds), and so does a "waiting for ... to answer"
 * notice, which depends on how fast a server starts, not on the daemon.
 */
export const seen = (r: RunResult) => ({
  code: r.code,
  stdout: timeless(r.stdout),
  stderr: timeless(r.stderr.replace(/^mcpkit: waiting for .*\n/gm, '')),
});
const timeless = (text: string) => text.replace(/"duration_ms": \d+/g, '"duration_ms": 0').replace(/\b\d+ ms\b/g, 'N ms');
