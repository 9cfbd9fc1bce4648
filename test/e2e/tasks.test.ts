import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { type InProcessServe, serveHttpAsCli, serveHttpInProcess } from '../helpers/in-process.js';
import { FIXTURE_SERVERS, FIXTURES, waitFor, writeConfig } from '../helpers/upstreams.js';
import { modernRpc, TASKS_CAPABILITIES } from '../helpers/modern-rpc.js';

/**
 * mcpkit as the task host (io.modelcontextprotocol/tasks, SEP-2663), spoken to as the conformance
 * suite does: raw JSON-RPC over HTTP with the 2026-07-28 envelope. The upstream
 * (test/fixtures/tasks-server.mjs) knows nothing of tasks; two named clients share serve, which
 * runs in this process (helpers/in-process.ts: `serve --http`'s code, its upstream a session of the
 * suite's pool): what is asked is its answers, not its process.
 */

let config: string;
let served: InProcessServe;
/** serve of `config` in this process, with an environment of its own, as a process of it would have. */
const serveConfig = () => serveHttpAsCli(config);

beforeAll(async () => {
  config = writeConfig({
    mcp_servers: { jobs: FIXTURES.tasks },
    tool_views: { jobs: { servers: ['jobs'] } },
    // greet is quick, but its first call also starts the upstream, which a loaded machine made
    // take longer than the default 500 ms: a quick call is one done before its own after_ms.
    // release (quick too) is answered as it is, so its answer says the hold was let go.
    serve: {
      groups: ['config'],
      clients: { alice: { token: 'alice-token' }, bob: { token: 'bob-token' } },
      tasks: { tools: { greet: 30_000, release: 30_000 } },
    },
  });
  served = await serveConfig();
});
afterAll(async () => {
  await served?.close();
});

/** One 2026-07-28 request; `tasks`: the request declares the extension (and elicitation, for input_required). */
const rpc = (base: string, token: string, method: string, params: Record<string, unknown>, options: { tasks?: boolean } = {}) =>
  modernRpc(`${base}/view/jobs/mcp`, method, params, { token, capabilities: options.tasks === false ? {} : TASKS_CAPABILITIES, client: 'tasks-e2e' });

const call = (token: string, name: string, args: Record<string, unknown>, options?: { tasks?: boolean }) =>
  rpc(served.url, token, 'tools/call', { name, arguments: args }, options);
const get = (token: string, taskId: string) => rpc(served.url, token, 'tasks/get', { taskId });

async function until(token: string, taskId: string, status: string) {
  let last: Record<string, unknown> | undefined;
  const reached = await waitFor(async () => {
    last = (await get(token, taskId)).result;
    return last?.status === status;
  }, 30_000);
  expect(reached, JSON.stringify(last)).toBe(true);
  return last!;
}

/**
 * The answer to a call whose upstream work cannot end before the test lets it (a held call, a
 * server not started yet): it came, so it came before that work ended. The deadline is only
 * there to fail with a message instead of the test's timeout; it bounds nothing the test is about.
 */
async function answeredWithin<T>(answer: Promise<T>, ms = 40_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms while the upstream work was held: it was not answered as a task`)), ms);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

// The two suites run at once (the second's serve, config and server are its own, and it waits on
// a gate and a task); the first suite's tests share one serve, and run in turn.
describe.concurrent('mcpkit hosts tasks for an upstream that knows none', () => {
  it.sequential('server/discover says so; a quick call is answered as usual', async () => {
    const discovered = await rpc(served.url, 'alice-token', 'server/discover', {});
    expect(discovered.result, JSON.stringify(discovered)).toBeDefined();
    expect((discovered.result!.capabilities as { extensions?: Record<string, unknown> }).extensions).toHaveProperty(['io.modelcontextprotocol/tasks']);
    const greeted = await call('alice-token', 'greet', { name: 'Ann' });
    expect(greeted.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ann!' }] });
    expect(greeted.result).not.toHaveProperty('taskId');
  });

  it.sequential('a slow call is a task long before it is done, polled to completed with the tool result', async () => {
    // Held upstream until released below: with the default after_ms (500) it is answered as a task
    // while it runs; answered only when it ended, it would not be answered at all.
    const created = await answeredWithin(call('alice-token', 'slow_compute', { seconds: 4, label: 'first', hold: 'first' }));
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number), pollIntervalMs: expect.any(Number) });
    const taskId = String(created.result!.taskId);
    expect((await get('alice-token', taskId)).result).toMatchObject({ status: 'working' });
    expect((await call('alice-token', 'release', { hold: 'first' })).result).toMatchObject({ content: [{ type: 'text', text: 'released first' }] });
    const done = await until('alice-token', taskId, 'completed');
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'computed first after 4 s' }] });
  });

  it.sequential('a cancelled task ends cancelled, and the upstream hears notifications/cancelled', async () => {
    const before = Number(((await call('alice-token', 'cancellations', {})).result!.content as { text: string }[])[0]!.text);
    const created = await call('alice-token', 'slow_compute', { seconds: 30 });
    const taskId = String(created.result!.taskId);
    expect((await rpc(served.url, 'alice-token', 'tasks/cancel', { taskId })).result).toEqual({ resultType: 'complete' });
    await until('alice-token', taskId, 'cancelled');
    expect(
      await waitFor(
        async () => Number(((await call('alice-token', 'cancellations', {})).result!.content as { text: string }[])[0]!.text) === before + 1,
        20_000,
      ),
    ).toBe(true);
  });

  it.sequential('an input_required task is answered with tasks/update and completes', async () => {
    const created = await call('alice-token', 'confirm_delete', { filename: 'notes.txt' });
    const taskId = String(created.result!.taskId);
    const asking = await until('alice-token', taskId, 'input_required');
    const keys = Object.keys(asking.inputRequests as object);
    expect(keys).toEqual(['confirm']);
    const ack = await rpc(served.url, 'alice-token', 'tasks/update', { taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } });
    expect(ack.result).toEqual({ resultType: 'complete' });
    const done = await until('alice-token', taskId, 'completed');
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'deleted notes.txt' }] });
  });

  it.sequential("another client can neither see nor cancel a client's task", async () => {
    const created = await call('alice-token', 'slow_compute', { seconds: 2, label: 'private' });
    const taskId = String(created.result!.taskId);
    expect((await get('bob-token', taskId)).error).toMatchObject({ code: -32602 });
    expect((await rpc(served.url, 'bob-token', 'tasks/cancel', { taskId })).error).toMatchObject({ code: -32602 });
    expect((await rpc(served.url, 'bob-token', 'tasks/update', { taskId, inputResponses: {} })).error).toMatchObject({ code: -32602 });
    const done = await until('alice-token', taskId, 'completed');
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'computed private after 2 s' }] });
  });

  it.sequential('a quick call is answered alike with and without the extension (the host answers as the SDK would)', async () => {
    const hosted = await call('alice-token', 'greet', { name: 'Ann' });
    const plain = await call('alice-token', 'greet', { name: 'Ann' }, { tasks: false });
    expect(hosted.status).toBe(plain.status);
    expect(hosted.result).toEqual(plain.result);
    expect(hosted.result).toMatchObject({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': expect.any(Object) } });
    // An unknown tool: the same JSON-RPC error either way.
    const unknownHosted = await call('alice-token', 'no_such_tool', {});
    const unknownPlain = await call('alice-token', 'no_such_tool', {}, { tasks: false });
    expect(unknownHosted.error).toEqual(unknownPlain.error);
    expect(unknownHosted.error).toMatchObject({ code: -32602 });
  });

  it.sequential('a client that does not declare the extension gets a plain result, and -32021 for tasks/*', async () => {
    const plain = await call('alice-token', 'slow_compute', { seconds: 1, label: 'sync' }, { tasks: false });
    expect(plain.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'computed sync after 1 s' }] });
    const refused = await rpc(served.url, 'alice-token', 'tasks/get', { taskId: 'whatever' }, { tasks: false });
    expect(refused.error).toMatchObject({ code: -32021 });
  });

  it.sequential('a restart loses running tasks, and tasks/get says so', async () => {
    const created = await call('alice-token', 'slow_compute', { seconds: 30 });
    const taskId = String(created.result!.taskId);
    await served.close();
    served = await serveConfig();
    const after = await get('alice-token', taskId);
    expect(after.result).toMatchObject({ taskId, status: 'failed', error: { code: -32603, message: expect.stringContaining('restarted') } });
  });
});

describe.concurrent("serve.tasks.after_ms counts from the call's arrival", () => {
  it('the first call of a view whose server is still starting is a task after_ms after it came, the start included', async () => {
    // The server starts only once the test opens the gate, after the call was answered.
    const gateDir = tempDir();
    const gate = join(gateDir, 'open');
    const fixture = JSON.stringify(pathToFileURL(FIXTURE_SERVERS.tasks).href);
    const launcher = `const t = setInterval(() => { if (require('node:fs').existsSync(${JSON.stringify(gate)})) { clearInterval(t); import(${fixture}); } }, 50)`;
    const slowConfig = writeConfig({
      mcp_servers: { jobs: { command: process.execPath, args: ['-e', launcher] } },
      tool_views: { jobs: { servers: ['jobs'] } },
      // start_wait_ms 0: serve listens at once, with the server still starting (it starts only once
      // the gate opens), instead of first waiting 5 s for it in vain.
      serve: { clients: { alice: { token: 'alice-token' } }, tasks: { after_ms: 500 }, start_wait_ms: 0 },
    });
    const slow = await serveHttpInProcess(slowConfig, { env: cleanEnv() });
    try {
      // Counted from when the start ended, it could not come before the gate opens; from its arrival, it comes after 500 ms.
      const created = await answeredWithin(rpc(slow.url, 'alice-token', 'tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'cold' } }));
      expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
      writeFileSync(gate, '');
      const taskId = String(created.result!.taskId);
      let last: Record<string, unknown> | undefined;
      const done = await waitFor(async () => (last = (await rpc(slow.url, 'alice-token', 'tasks/get', { taskId })).result)?.status === 'completed', 40_000);
      expect(done, JSON.stringify(last)).toBe(true);
      expect(last).toMatchObject({ result: { content: [{ type: 'text', text: 'computed cold after 1 s' }] } });
    } finally {
      await slow.close();
      rmSync(dirname(slowConfig), { recursive: true, force: true });
      rmSync(gateDir, { recursive: true, force: true });
    }
  });
});
