import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, spawnTracked, stopChild, tempDir, type PipedChild } from '../helpers/cli.js';
import { FIXTURE_SERVERS, freePort, SERVERS, waitFor } from '../helpers/upstreams.js';

/**
 * docs/deploy/nginx.conf as written (its ports replaced by free ones), with Debian's nginx in
 * front of two serve --http replicas: both eras' clients work through it, 2025 sessions stay on
 * the replica that made them, and when a replica is killed mid-test, 2026 clients carry on and a
 * 2025 client of the dead replica gets a clear error and recovers with a new session.
 */

const nginx = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
if (!nginx) console.log('skipped: nginx in front of two replicas (Debian package "nginx" is not installed)');

const children: PipedChild[] = [];
const clients: Client[] = [];
let front = '';
const replicas: Record<'r1' | 'r2', { child: PipedChild; port: number }> = {} as never;

async function startReplica(id: 'r1' | 'r2', config: string, port: number): Promise<PipedChild> {
  const child = spawnTracked(process.execPath, [BIN, 'serve', '--http', '--port', String(port), '--config', config], {
    env: cleanEnv({ REPLICA_ID: id }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  if (!(await waitFor(() => /listening on/.test(stderr) || child.exitCode !== null, 20_000))) throw new Error(`replica ${id} did not start: ${stderr}`);
  children.push(child);
  return child;
}

beforeAll(async () => {
  if (!nginx) return;
  const dir = tempDir();
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { everything: SERVERS.everything, jobs: { command: process.execPath, args: [FIXTURE_SERVERS.tasks] } },
      serve: { replica_id: '${REPLICA_ID}' },
    }),
  );
  const [p0, p1, p2] = [await freePort(), await freePort(), await freePort()];
  replicas.r1 = { port: p1, child: await startReplica('r1', config, p1) };
  replicas.r2 = { port: p2, child: await startReplica('r2', config, p2) };
  // The documented file, its example ports replaced, and nginx's scratch folders under the test's.
  const conf = readFileSync(join(ROOT, 'docs/deploy/nginx.conf'), 'utf8')
    .replaceAll('127.0.0.1:8800', `127.0.0.1:${p0}`)
    .replaceAll('127.0.0.1:8801', `127.0.0.1:${p1}`)
    .replaceAll('127.0.0.1:8802', `127.0.0.1:${p2}`)
    .replace(
      'http {',
      `http {\n    client_body_temp_path ${dir}/body;\n    proxy_temp_path ${dir}/proxy;\n    fastcgi_temp_path ${dir}/fastcgi;\n    uwsgi_temp_path ${dir}/uwsgi;\n    scgi_temp_path ${dir}/scgi;`,
    );
  mkdirSync(join(dir, 'logs'), { recursive: true });
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const proxy = spawnTracked(nginx, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; pid ${dir}/nginx.pid; error_log ${dir}/logs/error.log;`], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proxy);
  front = `http://127.0.0.1:${p0}`;
  const up = await waitFor(
    () =>
      fetch(`${front}/health`).then(
        (r) => r.ok,
        () => false,
      ),
    10_000,
  );
  if (!up) throw new Error(`nginx did not start: ${existsSync(join(dir, 'logs/error.log')) ? readFileSync(join(dir, 'logs/error.log'), 'utf8') : ''}`);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(children.map((c) => stopChild(c)));
});

async function client(era: 'legacy' | 'modern'): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const c = new Client({ name: `nginx-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  const transport = new StreamableHTTPClientTransport(new URL(`${front}/mcp`));
  await c.connect(transport);
  clients.push(c);
  return { client: c, transport };
}

const echo = async (c: Client, message: string) => JSON.stringify((await c.callTool({ name: 'everything__echo', arguments: { message } })).content);

describe.skipIf(!nginx)('behind nginx (docs/deploy/nginx.conf), two replicas', () => {
  it('both eras work through it; a 2025 session stays on the replica that made it', async () => {
    const legacy = await Promise.all([client('legacy'), client('legacy'), client('legacy'), client('legacy')]);
    const ids = legacy.map((l) => l.transport.sessionId ?? '');
    // Round robin spread the sessions over both replicas, each id naming its replica.
    expect(new Set(ids.map((id) => id.split('.')[0]))).toEqual(new Set(['r1', 'r2']));
    for (const [i, l] of legacy.entries()) for (let n = 0; n < 3; n++) expect(await echo(l.client, `legacy ${i}.${n}`)).toContain(`Echo: legacy ${i}.${n}`);
    const modern = await client('modern');
    for (let n = 0; n < 4; n++) expect(await echo(modern.client, `modern ${n}`)).toContain(`Echo: modern ${n}`);
  }, 60_000);

  it('a task made on one replica is found through the balancer: its id names the replica, and Mcp-Name routes tasks/* there', async () => {
    let id = 0;
    const rpc = async (method: string, params: Record<string, unknown>, name: string) => {
      const response = await fetch(`${front}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          'mcp-name': name,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: ++id,
          method,
          params: {
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
              'io.modelcontextprotocol/clientInfo': { name: 'nginx-tasks', version: '1' },
            },
          },
        }),
      });
      return (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
    };
    // Made round robin, so on both replicas.
    const made = await Promise.all([1, 2, 3, 4].map(() => rpc('tools/call', { name: 'jobs__slow_compute', arguments: { seconds: 1 } }, 'jobs__slow_compute')));
    const ids = made.map((m) => String(m.result?.taskId));
    expect(new Set(ids.map((t) => t.split('.')[0]))).toEqual(new Set(['r1', 'r2']));
    // Each polled through the balancer gets its own replica every time.
    for (const taskId of ids) {
      expect(await waitFor(async () => (await rpc('tasks/get', { taskId }, taskId)).result?.status === 'completed', 10_000), taskId).toBe(true);
      for (let i = 0; i < 3; i++) expect((await rpc('tasks/get', { taskId }, taskId)).result).toMatchObject({ taskId, status: 'completed' });
    }
  }, 60_000);

  it('a replica killed mid-test: 2026 clients carry on; a 2025 client of the dead replica gets a clear error, then a new session works', async () => {
    const modern = await client('modern');
    let ofDead: Awaited<ReturnType<typeof client>> | undefined;
    for (let i = 0; i < 6 && !ofDead; i++) {
      const l = await client('legacy');
      if (l.transport.sessionId?.startsWith('r1.')) ofDead = l;
    }
    expect(ofDead, 'no session landed on r1').toBeDefined();
    expect(await echo(ofDead!.client, 'before')).toContain('Echo: before');

    replicas.r1.child.kill('SIGKILL');
    await waitFor(() => replicas.r1.child.exitCode !== null || replicas.r1.child.signalCode !== null, 5_000);

    for (let n = 0; n < 6; n++) expect(await echo(modern.client, `after ${n}`)).toContain(`Echo: after ${n}`);
    const lost = await echo(ofDead!.client, 'lost').then(
      () => 'answered',
      (error: Error) => error.message,
    );
    expect(lost).not.toBe('answered');
    expect(lost).toMatch(/502|Bad Gateway|session/i);
    const again = await client('legacy');
    expect(again.transport.sessionId?.startsWith('r2.')).toBe(true);
    expect(await echo(again.client, 'again')).toContain('Echo: again');
  }, 60_000);
});
