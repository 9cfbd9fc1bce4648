import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { assert, it } from 'vitest';
import { spawnTracked, stopChild, tempDir, type PipedChild } from '../helpers/cli.js';
import { freePort, waitFor } from '../helpers/upstreams.js';

/**
 * Debian's redis-server, started by a test on a free loopback port with nothing kept on disk. In
 * CI (.ci/run sets MCPKIT_REDIS=required) a missing one fails the run; elsewhere the tests that
 * need it skip, saying so. Never a fake: the store is the subject.
 */
/** MCPKIT_REDIS_SERVER names another binary (one that does not exist: as if it were not installed). */
const REDIS_PATHS = process.env.MCPKIT_REDIS_SERVER
  ? [process.env.MCPKIT_REDIS_SERVER]
  : ['/usr/bin/redis-server', '/usr/sbin/redis-server', '/usr/local/bin/redis-server'];
export const REDIS_SERVER = REDIS_PATHS.find((p) => existsSync(p));
export const REDIS_REQUIRED = process.env.MCPKIT_REDIS === 'required';

/**
 * Whether a test file that needs redis-server can run, said once at its top: without it, under
 * MCPKIT_REDIS=required (CI) the file gets a test that fails saying so; elsewhere it prints one
 * line naming what is skipped. Every file that needs the store calls this, so none skips silently.
 */
export function redisFor(what: string): boolean {
  const verdict = redisVerdict(what, REDIS_SERVER, REDIS_REQUIRED);
  if (verdict.kind === 'fail') it(`redis-server is installed for ${what}`, () => void assert.fail(verdict.message));
  if (verdict.kind === 'skip') console.log(verdict.message);
  return verdict.kind === 'run';
}

/** What a file that needs redis-server does, given whether it is installed and required. Pure. */
export function redisVerdict(what: string, installed: string | undefined, required: boolean): { kind: 'run' | 'fail' | 'skip'; message: string } {
  if (installed) return { kind: 'run', message: '' };
  if (required) return { kind: 'fail', message: `redis-server is required here (MCPKIT_REDIS=required) for ${what}: apt-get install redis-server` };
  return { kind: 'skip', message: `skipped: ${what} (Debian package "redis-server" is not installed; MCPKIT_REDIS=required makes this a failure)` };
}

/** serve.store.key of the tests' replicas: 32 characters and more, as serve requires. */
export const STORE_KEY = 'test-store-key-Zq8vN3xW5mLp2RtY7kHc';

export interface RunningRedis {
  port: number;
  url: string;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop). */
  start(): Promise<void>;
  /** Sends the running server a signal (SIGSTOP: a store that stalls, answering nothing; SIGCONT: it goes on). */
  signal(signal: NodeJS.Signals): void;
}

export async function startRedis(at?: number): Promise<RunningRedis> {
  if (!REDIS_SERVER) throw new Error('redis-server is not installed (Debian package "redis-server")');
  const port = at ?? (await freePort());
  const dir = tempDir('mcpkit-test-redis-');
  let child: PipedChild | undefined;
  const start = async () => {
    child = spawnTracked(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const up = await waitFor(() => reachable(port), 10_000);
    if (!up) throw new Error(`redis-server did not start on port ${port}`);
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    signal: (signal) => void child?.kill(signal),
    async stop() {
      if (child) await stopChild(child);
      child = undefined;
    },
  };
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
