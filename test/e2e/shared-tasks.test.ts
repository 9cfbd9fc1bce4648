import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChild } from '../helpers/cli.js';
import { serveHttpAsCli } from '../helpers/in-process.js';
import { serveHttpChild } from '../helpers/serve.js';
import { FIXTURES, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';
import { redisFor, startRedis, STORE_KEY, type RunningRedis } from '../support/redis-server.js';
import { modernRpc, TASKS_CAPABILITIES } from '../helpers/modern-rpc.js';

/**
 * Tasks shared by replicas of serve --http through a real redis-server (serve.store): a task made on
 * one replica is read, answered, cancelled and completed through another, as a round-robin balancer
 * with no map would send the requests; a replica killed mid-task leaves it failed, said so by the
 * other within the lease. Raw 2026-07-28 JSON-RPC, as tasks.test.ts speaks it. Replica 0 serves in
 * the test's process (test/helpers/in-process.ts: the same serve, without a process start),
 * replica 1 is a process of its own, so that every task crosses from one process to another
 * through the store; the replica killed mid-task is a process, as a kill needs one.
 */

const withRedis = redisFor('tasks shared by replicas');

describe.skipIf(!withRedis)('tasks shared by replicas (serve.store)', () => {
  const replicas: { url: string; stop(): Promise<void> }[] = [];
  let config: string;
  let redis: RunningRedis | undefined;

  beforeAll(async () => {
    redis = await startRedis();
    config = writeConfig({
      mcp_servers: { jobs: FIXTURES.tasks, everything: SERVERS.everything },
      tool_views: { jobs: { servers: ['jobs'] }, old: { servers: ['everything'], exposure: 'direct' } },
      serve: {
        groups: ['config', 'server'],
        clients: { alice: { token: 'alice-token' }, bob: { token: 'bob-token' } },
        tasks: { tools: { greet: 30_000 } },
        store: { url: redis.url, lease_ms: 2000, key: STORE_KEY },
      },
    });
    // As the process is started: the config's exposure, a clean environment.
    const [here, there] = await Promise.all([serveHttpAsCli(config), serveHttpChild(config)]);
    replicas.push({ url: here.url, stop: () => here.close() }, { url: there.url, stop: () => stopChild(there.child) });
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled(replicas.map((r) => r.stop()));
    await redis?.stop();
  });

  const rpc = (base: string, token: string, method: string, params: Record<string, unknown>, view = 'jobs', tasks = true) =>
    modernRpc(view === 'default' ? `${base}/mcp` : `${base}/view/${view}/mcp`, method, params, {
      token,
      capabilities: tasks ? TASKS_CAPABILITIES : { elicitation: { form: {} } },
      client: 'shared-tasks',
    });
  const on = (i: number) => replicas[i]!.url;
  const until = async (base: string, taskId: string, status: string) => {
    let last: Record<string, unknown> | undefined;
    const reached = await waitFor(async () => {
      last = (await rpc(base, 'alice-token', 'tasks/get', { taskId })).result;
      return last?.status === status;
    }, 15_000);
    expect(reached, JSON.stringify(last)).toBe(true);
    return last!;
  };

  it('a task made on one replica is followed to its result on the other; another client cannot see it there', async () => {
    const created = await rpc(on(0), 'alice-token', 'tools/call', { name: 'slow_compute', arguments: { seconds: 2, label: 'shared' } });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = String(created.result!.taskId);
    // The record is there before the client heard of the task.
    expect((await rpc(on(1), 'alice-token', 'tasks/get', { taskId })).result).toMatchObject({ taskId, status: 'working' });
    expect((await rpc(on(1), 'bob-token', 'tasks/get', { taskId })).error).toMatchObject({ code: -32602 });
    const done = await until(on(1), taskId, 'completed');
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'computed shared after 2 s' }] });
  }, 60_000);

  it('tasks/update sent to the other replica answers the question, and the task completes', async () => {
    const created = await rpc(on(0), 'alice-token', 'tools/call', { name: 'confirm_delete', arguments: { filename: 'shared.txt' } });
    const taskId = String(created.result!.taskId);
    const asking = await until(on(1), taskId, 'input_required');
    expect(Object.keys(asking.inputRequests as object)).toEqual(['confirm']);
    const ack = await rpc(on(1), 'alice-token', 'tasks/update', { taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } });
    expect(ack.result).toEqual({ resultType: 'complete' });
    const done = await until(on(0), taskId, 'completed');
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'deleted shared.txt' }] });
  }, 60_000);

  it('tasks/cancel sent to the other replica stops the call where it runs: the upstream hears notifications/cancelled', async () => {
    const count = async () =>
      Number(((await rpc(on(0), 'alice-token', 'tools/call', { name: 'cancellations', arguments: {} })).result!.content as { text: string }[])[0]!.text);
    const before = await count();
    const created = await rpc(on(0), 'alice-token', 'tools/call', { name: 'slow_compute', arguments: { seconds: 30 } });
    const taskId = String(created.result!.taskId);
    expect((await rpc(on(1), 'alice-token', 'tasks/cancel', { taskId })).result).toEqual({ resultType: 'complete' });
    await until(on(1), taskId, 'cancelled');
    expect(await waitFor(async () => (await count()) === before + 1, 5_000)).toBe(true);
  }, 60_000);

  it("a 2025 server's question answered through the other replica: the retry goes on where the call is parked", async () => {
    const asked = await rpc(on(0), 'alice-token', 'tools/call', { name: 'trigger-elicitation-request', arguments: {} }, 'old', false);
    expect(asked.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    const [key] = Object.keys(asked.result!.inputRequests as object);
    const retry = {
      name: 'trigger-elicitation-request',
      arguments: {},
      inputResponses: { [key!]: { action: 'accept', content: { name: 'Ada' } } },
      requestState: asked.result!.requestState,
    };
    const answered = await rpc(on(1), 'alice-token', 'tools/call', retry, 'old', false);
    expect(answered.error).toBeUndefined();
    expect(JSON.stringify(answered.result)).toContain('Ada');
    // Passed once: the state is spent, on either replica.
    expect((await rpc(on(1), 'alice-token', 'tools/call', retry, 'old', false)).error).toMatchObject({ code: -32602 });
  }, 60_000);

  it("an agent command's approval answered through the other replica is taken there, once", async () => {
    const add = { name: 'server_add', arguments: { name: 'from-agent', command: process.execPath, args: ['--version'] } };
    const asked = await rpc(on(0), 'alice-token', 'tools/call', add, 'default', false);
    expect(asked.result).toMatchObject({ resultType: 'input_required', inputRequests: { mcpkit_approval: expect.any(Object) } });
    const retry = { ...add, inputResponses: { mcpkit_approval: { action: 'accept', content: { approve: true } } }, requestState: asked.result!.requestState };
    const added = await rpc(on(1), 'alice-token', 'tools/call', retry, 'default', false);
    expect(added.result?.isError, JSON.stringify(added)).toBeFalsy();
    expect(readFileSync(config, 'utf8')).toContain('from-agent');
    // The answer is spent: the same retry is asked again, not taken twice.
    expect((await rpc(on(0), 'alice-token', 'tools/call', retry, 'default', false)).result).toMatchObject({ resultType: 'input_required' });
  }, 60_000);

  it('a replica killed mid-task leaves the task failed, said so by the other within the lease', async () => {
    const doomed = await serveHttpChild(config);
    try {
      const created = await rpc(doomed.url, 'alice-token', 'tools/call', { name: 'slow_compute', arguments: { seconds: 30 } });
      const taskId = String(created.result!.taskId);
      expect((await rpc(on(1), 'alice-token', 'tasks/get', { taskId })).result).toMatchObject({ status: 'working' });
      doomed.child.kill('SIGKILL');
      const started = Date.now();
      const failed = await until(on(1), taskId, 'failed');
      expect(Date.now() - started).toBeLessThan(2000 + 3000); // the lease, and room for a loaded machine
      expect(failed.statusMessage).toBe('The replica running it stopped.');
      // Said once, kept: the other replica reads the same.
      expect((await rpc(on(0), 'alice-token', 'tasks/get', { taskId })).result).toMatchObject({ status: 'failed' });
    } finally {
      await stopChild(doomed.child);
    }
  }, 60_000);
});
