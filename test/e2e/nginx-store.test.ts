import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, stopChild, tempDir, type PipedChild } from '../helpers/cli.js';
import { FIXTURES, freePort, SERVERS, waitFor } from '../helpers/upstreams.js';
import { startNginx, startReplica, startReplicaHere } from '../helpers/nginx.js';
import { redisFor, startRedis, STORE_KEY, type RunningRedis } from '../support/redis-server.js';
import { modernRpc } from '../helpers/modern-rpc.js';

/**
 * docs/deploy/nginx-store.conf as written (its ports replaced by free ones): Debian's nginx in
 * front of two serve --http replicas sharing a real redis-server, 2026-07-28 traffic round robin
 * with no map. Tasks made on both replicas are polled to their end through it, a 2025 server's
 * question is answered through it (the retry may reach either replica), and 2025 sessions keep
 * their replica.
 */

const nginx = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
if (!nginx) console.log('skipped: nginx in front of replicas sharing a store (Debian package "nginx" is not installed)');
const withRedis = nginx !== undefined && redisFor('nginx in front of replicas sharing a store');

const children: PipedChild[] = [];
const clients: Client[] = [];
let redis: RunningRedis | undefined;
let front = '';

beforeAll(async () => {
  if (!withRedis) return;
  redis = await startRedis();
  const dir = tempDir();
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { everything: SERVERS.everything, jobs: FIXTURES.tasks },
      serve: { replica_id: '${REPLICA_ID}', store: { url: redis.url, key: STORE_KEY } },
    }),
  );
  // r1 a process, r2 in this process (closed after the file): two processes, so that a task's
  // poll or a question's retry that reaches the other replica crosses between them through the store.
  const [r1, r2] = [await startReplica(BIN, 'r1', config), await startReplicaHere('r2', config)];
  children.push(r1.child);
  const proxy = await startNginx('nginx-store.conf', dir, { front: await freePort(), r1: r1.port, r2: r2.port });
  children.push(proxy.child);
  front = proxy.url;
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(children.map((c) => stopChild(c)));
  await redis?.stop();
});

const rpc = (method: string, params: Record<string, unknown>, _name: string, capabilities: Record<string, unknown>) =>
  modernRpc(`${front}/mcp`, method, params, { capabilities, client: 'nginx-store' });
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

describe.skipIf(!withRedis)('behind nginx without a map (docs/deploy/nginx-store.conf), two replicas sharing a store', () => {
  it('tasks made on both replicas are polled to their end round robin; their ids route nowhere', async () => {
    const made = await Promise.all(
      [1, 2, 3, 4].map(() => rpc('tools/call', { name: 'jobs__slow_compute', arguments: { seconds: 1 } }, 'jobs__slow_compute', TASKS)),
    );
    const ids = made.map((m) => String(m.result?.taskId));
    expect(new Set(ids.map((t) => t.split('.')[0]))).toEqual(new Set(['r1', 'r2']));
    for (const taskId of ids) {
      expect(await waitFor(async () => (await rpc('tasks/get', { taskId }, taskId, TASKS)).result?.status === 'completed', 10_000), taskId).toBe(true);
      // Round robin: the next reads land on both replicas, and each answers it.
      for (let i = 0; i < 3; i++) expect((await rpc('tasks/get', { taskId }, taskId, TASKS)).result).toMatchObject({ taskId, status: 'completed' });
    }
  }, 60_000);

  it("a 2025 server's questions are answered through the balancer, wherever the retry lands", async () => {
    for (let n = 0; n < 4; n++) {
      const asked = await rpc('tools/call', { name: 'everything__trigger-elicitation-request', arguments: {} }, 'everything__trigger-elicitation-request', {
        elicitation: { form: {} },
      });
      expect(asked.result).toMatchObject({ resultType: 'input_required' });
      const [key] = Object.keys(asked.result!.inputRequests as object);
      const answered = await rpc(
        'tools/call',
        {
          name: 'everything__trigger-elicitation-request',
          arguments: {},
          inputResponses: { [key!]: { action: 'accept', content: { name: `Ada ${n}` } } },
          requestState: asked.result!.requestState,
        },
        'everything__trigger-elicitation-request',
        { elicitation: { form: {} } },
      );
      expect(answered.error, JSON.stringify(answered)).toBeUndefined();
      expect(JSON.stringify(answered.result)).toContain(`Ada ${n}`);
    }
  }, 60_000);

  it('a 2025 session stays on its replica', async () => {
    const c = new Client({ name: 'nginx-store-legacy', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${front}/mcp`));
    await c.connect(transport);
    clients.push(c);
    for (let n = 0; n < 4; n++)
      expect(JSON.stringify((await c.callTool({ name: 'everything__echo', arguments: { message: `s ${n}` } })).content)).toContain(`Echo: s ${n}`);
  }, 30_000);
});
