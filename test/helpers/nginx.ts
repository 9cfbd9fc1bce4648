import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, ROOT, spawnTracked, type PipedChild } from './cli.js';
import { serveHttpAsCli } from './in-process.js';
import { waitFor } from './upstreams.js';

/** Debian's nginx, where it is installed. */
export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

/**
 * One of docs/deploy's nginx files as written, its example ports (8800 in front, 8801 and 8802
 * behind) replaced by the given ones and its scratch folders put under `dir`, run in the
 * foreground; resolves once it answers /health on `front`.
 */
export async function startNginx(file: string, dir: string, ports: { front: number; r1: number; r2: number }): Promise<{ child: PipedChild; url: string }> {
  const conf = readFileSync(join(ROOT, 'docs/deploy', file), 'utf8')
    .replaceAll('127.0.0.1:8800', `127.0.0.1:${ports.front}`)
    .replaceAll('127.0.0.1:8801', `127.0.0.1:${ports.r1}`)
    .replaceAll('127.0.0.1:8802', `127.0.0.1:${ports.r2}`)
    .replace(
      'http {',
      `http {\n    client_body_temp_path ${dir}/body;\n    proxy_temp_path ${dir}/proxy;\n    fastcgi_temp_path ${dir}/fastcgi;\n    uwsgi_temp_path ${dir}/uwsgi;\n    scgi_temp_path ${dir}/scgi;`,
    );
  mkdirSync(join(dir, 'logs'), { recursive: true });
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawnTracked(NGINX!, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; pid ${dir}/nginx.pid; error_log ${dir}/logs/error.log;`], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = `http://127.0.0.1:${ports.front}`;
  const up = await waitFor(
    () =>
      fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      ),
    10_000,
  );
  if (!up) throw new Error(`nginx did not start: ${existsSync(join(dir, 'logs/error.log')) ? readFileSync(join(dir, 'logs/error.log'), 'utf8') : ''}`);
  return { child, url };
}

/**
 * A serve --http replica with REPLICA_ID set, once it listens, and the port it listens on. It takes
 * a port of its own (--port 0): a port picked free beforehand could be taken by another test file's
 * process before the replica bound it, and the replica then ended LISTEN_FAILED while nginx sent
 * every client to the other one. A replica that ends before it listens fails the start.
 */
export async function startReplica(bin: string, id: string, config: string): Promise<{ child: PipedChild; port: number }> {
  const child = spawnTracked(process.execPath, [bin, 'serve', '--http', '--port', '0', '--config', config], {
    env: cleanEnv({ REPLICA_ID: id }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const listening = () => /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(stderr);
  await waitFor(() => listening() !== null || child.exitCode !== null, 20_000);
  const port = Number(listening()?.[1]);
  if (!port) throw new Error(`replica ${id} did not start: ${stderr}`);
  return { child, port };
}

/**
 * The same replica in this process (helpers/in-process.ts: `serve --http`'s code on a port of its
 * own, REPLICA_ID in its environment, the package's version as the process says it), for the
 * replica whose process is not the point: the one that is not killed. The other stays a process,
 * so that nothing one process shares carries a client from one replica to the other.
 */
export async function startReplicaHere(id: string, config: string): Promise<{ close(): Promise<void>; port: number }> {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const served = await serveHttpAsCli(config, { version, env: cleanEnv({ REPLICA_ID: id }) });
  return { close: served.close, port: Number(new URL(served.url).port) };
}
