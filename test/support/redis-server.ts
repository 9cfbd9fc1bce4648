import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { spawnTracked, stopChild, tempDir, type PipedChild } from '../helpers/cli.js';
import { freePort, waitFor } from '../helpers/upstreams.js';

/**
 * Debian's redis-server, started by a test on a free loopback port with nothing kept on disk. In
 * CI (.ci/run sets MCPKIT_REDIS=required) a missing one fails the run; elsewhere the tests that
 * need it skip, saying so. Never a fake: the store is the subject.
 */
export const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/sbin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));
export const REDIS_REQUIRED = process.env.MCPKIT_REDIS === 'required';

export interface RunningRedis {
  port: number;
  url: string;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop). */
  start(): Promise<void>;
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
