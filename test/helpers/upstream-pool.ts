import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { whichOn } from '../../src/proxy/sandbox/host-facts.js';
import { ROOT } from './root.js';

/**
 * The stdio servers the suite starts most, server-everything, server-memory and the file-tools,
 * tasks and relay fixtures, answered for the whole run by one process
 * (test/fixtures/upstream-pool.mjs), each session reached through a stdio relay
 * (test/fixtures/pool-relay.pl). A start of the server's own process, even from its startup
 * snapshot, costs 0.15-0.2 CPU-s here, and the suite started them some 1,200 times a run; a relay
 * costs what a process costs (~10 ms), its session in the pool ~8 ms. The server's code is the
 * same, and the pipe mcpkit writes to and reads from is a real process's stdin and stdout; what
 * differs is the process behind it. A test about the upstream's process itself (its start, exit,
 * environment, stderr, signals, box) starts the server's own (`SERVERS.everythingProcess` and
 * `.memoryProcess`, `fileToolsProcess`, `FIXTURES.tasksProcess` and `.relayProcess`); server-everything's get-env,
 * which reads its process's environment, is refused in the pool, so that a test reading it through
 * the pool fails instead of reading the pool's.
 */

/** The folder of the pool's sockets (one a server), for every worker (they inherit the global setup's environment). */
const DIR_ENV = 'MCPKIT_TEST_UPSTREAM_POOL';
const PERL_ENV = 'MCPKIT_TEST_POOL_PERL';

const POOL_RELAY = join(ROOT, 'test/fixtures/pool-relay.pl');

/** The servers the pool answers (test/fixtures/pool-servers.mjs). */
export type PooledServer = 'everything' | 'file-tools' | 'tasks' | 'relay' | 'memory';

/**
 * The command that starts a session of `server` in the pool, or undefined where there is no pool
 * (no Perl, or no global setup) or it does not answer that server (it could not load it, and said why).
 */
export function pooled(server: PooledServer, args: string[]): { command: string; args: string[] } | undefined {
  const dir = process.env[DIR_ENV];
  const perl = process.env[PERL_ENV];
  const socket = dir && join(dir, `${server}.sock`);
  return socket && perl && existsSync(socket) ? { command: perl, args: [POOL_RELAY, socket, ...args] } : undefined;
}

/** The Perl the relay runs on, where there can be a pool: on Linux (the relay packs a Linux socket address). */
export function poolPerl(): string | undefined {
  return process.platform === 'linux' ? whichOn(process.env.PATH, 'perl') : undefined;
}

/**
 * Starts the pool (the global setup); returns what ends it. Without Perl (or off Linux) there is
 * no relay, and tests start the servers' own processes: slower, the same answers.
 */
export async function startUpstreamPool(): Promise<() => Promise<void>> {
  // vitest runs the global setup once for the root and again for each project that extends it, in
  // one process: the first starts the pool and its teardown ends it; the others use it.
  const started = process.env[DIR_ENV];
  if (started && existsSync(started)) return async () => undefined;
  const perl = poolPerl();
  if (!perl) return async () => undefined;
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-pool-'));
  // Said before the first await, so that a setup run beside this one finds it (and the workers, started later).
  process.env[DIR_ENV] = dir;
  process.env[PERL_ENV] = perl;
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'test/fixtures/upstream-pool.mjs'), dir], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const end = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
    delete process.env[DIR_ENV];
    delete process.env[PERL_ENV];
  };
  const ready = await new Promise<boolean>((resolve) => {
    child.stdout!.once('data', (d: Buffer) => resolve(String(d).startsWith('ready')));
    child.once('exit', () => resolve(false));
    child.once('error', () => resolve(false));
  });
  if (!ready) {
    console.error("the upstream pool did not start: tests start the servers' own processes instead");
    await end();
    return async () => undefined;
  }
  return end;
}
