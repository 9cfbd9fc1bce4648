import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, stopChild, tempDir, type PipedChild } from '../helpers/cli.js';
import { FIXTURES, freePort, SERVERS, waitFor } from '../helpers/upstreams.js';
import { startNginx, startReplica, startReplicaHere } from '../helpers/nginx.js';

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
// r1, the replica killed mid-test, is a process; r2 serves in this process (closed after the file).
const replicas: { r1: { child: PipedChild; port: number }; r2: { port: number } } = {} as never;

beforeAll(async () => {
  if (!nginx) return;
  const dir = tempDir();
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { everything: SERVERS.everything, jobs: FIXTURES.tasks },
      serve: { replica_id: '${REPLICA_ID}' },
    }),
  );
  replicas.r1 = await startReplica(BIN, 'r1', config);
  replicas.r2 = await startReplicaHere('r2', config);
  children.push(replicas.r1.child);
  const proxy = await startNginx('nginx.conf', dir, { front: await freePort(), r1: replicas.r1.port, r2: replicas.r2.port });
  children.push(proxy.child);
  front = proxy.url;
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
