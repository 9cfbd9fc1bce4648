import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/client';
import * as z from 'zod';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RawForwarder, type ForwardOutcome } from '../../../src/proxy/upstream/raw-forwarder.js';
import { REQUEST_TIMEOUT } from '../../../src/proxy/upstream/progress-timeout.js';
import { ROOT } from '../../helpers/cli.js';

/**
 * The contract between the hot path and the SDK: RawForwarder works below the SDK's Client (it
 * replaces `transport.onmessage` after Client.connect and sends requests of its own), so each
 * thing it relies on is checked here against the SDK in the lockfile, in-process, with a real SDK
 * server on the other end. An SDK upgrade that breaks one fails here, not in production.
 */
const sdkVersion = (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }).packages[
  'node_modules/@modelcontextprotocol/sdk'
]!.version;

interface Pair {
  client: Client;
  transport: InMemoryTransport;
  forwarder: RawForwarder;
  /** Messages the server side received, in order. */
  received: JSONRPCMessage[];
  release(): void;
}

const open: Pair[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const pair of open.splice(0)) {
    pair.release();
    await pair.client.close();
  }
});

/** An SDK client connected in-process to an SDK server with `echo`, `slow` (waits until released) and `progress`. */
async function pair(): Promise<Pair> {
  const server = new McpServer({ name: 'fixture', version: '1.0.0' });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  server.registerTool('echo', { inputSchema: z.object({ message: z.string() }) }, async ({ message }) => ({
    content: [{ type: 'text', text: `Echo: ${message}` }],
  }));
  server.registerTool('slow', {}, async () => {
    await gate;
    return { content: [{ type: 'text', text: 'late' }] };
  });
  server.registerTool('progress', {}, async (ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } });
    return { content: [{ type: 'text', text: `token seen upstream: ${String(token)}` }] };
  });
  // Reports progress every 40 ms for `ticks` ticks, then answers: a long call that says it is alive.
  server.registerTool('ticking', { inputSchema: z.object({ ticks: z.number() }) }, async ({ ticks }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= ticks; i++) {
      await new Promise((r) => setTimeout(r, 40));
      if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: ticks } });
    }
    return { content: [{ type: 'text', text: `ticked ${ticks}` }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const received: JSONRPCMessage[] = [];
  await server.connect(serverSide);
  const serverOnMessage = serverSide.onmessage!;
  serverSide.onmessage = (message, extra) => {
    received.push(message);
    serverOnMessage(message, extra);
  };
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  const forwarder = new RawForwarder('fw');
  forwarder.attach(clientSide);
  const made = { client, transport: clientSide, forwarder, received, release };
  open.push(made);
  return made;
}

/** A promise's value once it settles (read after advancing the fake clock). */
function settle<T>(promise: Promise<T>): { value: T | undefined } {
  const box: { value: T | undefined } = { value: undefined };
  void promise.then((value) => (box.value = value));
  return box;
}

function forward(p: Pair, params: Record<string, unknown>, timeoutMs = 5_000, progress?: (m: JSONRPCMessage) => void, maxTotalMs?: number) {
  let cancel!: () => void;
  const outcome = new Promise<ForwardOutcome>((done) => {
    cancel = p.forwarder.forward('tools/call', params, { timeoutMs, done, ...(progress ? { progress } : {}), ...(maxTotalMs ? { maxTotalMs } : {}) });
  });
  return { outcome, cancel };
}

describe(`RawForwarder against @modelcontextprotocol/sdk ${sdkVersion} (the lockfile's)`, () => {
  it('takes the response to a request of its own off the transport, and the SDK client keeps working beside it', async () => {
    const p = await pair();
    const [forwarded, listed] = await Promise.all([forward(p, { name: 'echo', arguments: { message: 'hi' } }).outcome, p.client.listTools()]);
    expect(forwarded).toEqual({ result: { content: [{ type: 'text', text: 'Echo: hi' }] } });
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['echo', 'progress', 'slow', 'ticking']);
    const viaSdk = await p.client.callTool({ name: 'echo', arguments: { message: 'sdk' } });
    expect(viaSdk.content).toEqual([{ type: 'text', text: 'Echo: sdk' }]);
    expect(p.forwarder.size).toBe(0);
  });

  it("passes the server's JSON-RPC error on as the outcome's error", async () => {
    const p = await pair();
    const outcome = await forward(p, { name: 'no_such_tool', arguments: {} }).outcome;
    // The SDK server answers an unknown tool either as a JSON-RPC error or as an isError result, by version.
    if ('error' in outcome) expect(outcome.error.code).toBeTypeOf('number');
    else expect(outcome.result.isError).toBe(true);
  });

  it('sends our own progress token upstream and hands progress back under the caller token', async () => {
    const p = await pair();
    const progress: JSONRPCMessage[] = [];
    const outcome = await forward(p, { name: 'progress', arguments: {}, _meta: { progressToken: 7 } }, 5_000, (m) => progress.push(m)).outcome;
    const sent = p.received.find((m) => 'method' in m && m.method === 'tools/call') as { params: { _meta: { progressToken: unknown } } };
    expect(sent.params._meta.progressToken).toMatch(/^fw-\d+$/);
    expect(JSON.stringify(outcome)).toContain(`token seen upstream: ${sent.params._meta.progressToken}`);
    expect(progress).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1, total: 2 } }]);
  });

  it('keeps two callers apart when they chose the same progress token', async () => {
    const p = await pair();
    const a: JSONRPCMessage[] = [];
    const b: JSONRPCMessage[] = [];
    await Promise.all([
      forward(p, { name: 'progress', arguments: {}, _meta: { progressToken: 1 } }, 5_000, (m) => a.push(m)).outcome,
      forward(p, { name: 'progress', arguments: {}, _meta: { progressToken: 1 } }, 5_000, (m) => b.push(m)).outcome,
    ]);
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
  });

  // Time is the subject: the server's ticks, the idle timeout and the ceiling all run on vitest's
  // clock (setTimeout and performance.now faked), advanced by the test, so a loaded machine that
  // holds a timer cannot decide which limit is reached.
  it('progress restarts the timeout: a call that reports every 40 ms outlives a 500 ms timeout, one that stops reporting does not', async () => {
    const p = await pair();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const heard: JSONRPCMessage[] = [];
    // The client asked for no progress: the server is asked for it anyway (it keeps the call alive), and none is handed on.
    const kept = settle(forward(p, { name: 'ticking', arguments: { ticks: 25 } }, 500, (m) => heard.push(m), 5_000).outcome);
    await vi.advanceTimersByTimeAsync(25 * 40 + 10);
    expect(kept.value).toEqual({ result: { content: [{ type: 'text', text: 'ticked 25' }] } });
    expect(heard).toEqual([]);
    const sent = p.received.find((m) => (m as { params?: { name?: string } }).params?.name === 'ticking') as { params: { _meta: { progressToken: string } } };
    expect(sent.params._meta.progressToken).toMatch(/^fw-/);
    const silent = settle(forward(p, { name: 'slow', arguments: {} }, 500, undefined, 5_000).outcome);
    await vi.advanceTimersByTimeAsync(499);
    expect(silent.value, 'not before its 500 ms').toBeUndefined();
    await vi.advanceTimersByTimeAsync(2);
    expect(silent.value).toMatchObject({ error: { code: REQUEST_TIMEOUT } });
    expect(silent.value && 'error' in silent.value && silent.value.error.total).toBeUndefined();
  });

  it('maxTotalMs ends a call however much progress it reports', async () => {
    const p = await pair();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const capped = settle(forward(p, { name: 'ticking', arguments: { ticks: 40 } }, 500, undefined, 700).outcome);
    await vi.advanceTimersByTimeAsync(699);
    expect(capped.value, 'not before its 700 ms').toBeUndefined();
    await vi.advanceTimersByTimeAsync(2);
    expect(capped.value).toMatchObject({ error: { code: REQUEST_TIMEOUT, total: true, message: 'Request timed out after 700 ms' } });
  });

  it('on timeout ends with REQUEST_TIMEOUT and tells the server it cancelled', async () => {
    const p = await pair();
    const outcome = await forward(p, { name: 'slow', arguments: {} }, 50).outcome;
    expect(outcome).toMatchObject({ error: { code: REQUEST_TIMEOUT } });
    await new Promise((r) => setTimeout(r, 20));
    const call = p.received.find((m) => 'method' in m && m.method === 'tools/call') as { id: string };
    expect(p.received).toContainEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id, reason: 'timeout' } });
  });

  it('cancel sends notifications/cancelled and never calls done; a late answer goes nowhere', async () => {
    const p = await pair();
    let done = false;
    const cancel = p.forwarder.forward('tools/call', { name: 'slow', arguments: {} }, { timeoutMs: 5_000, done: () => (done = true) });
    await new Promise((r) => setTimeout(r, 20));
    cancel();
    p.release();
    await new Promise((r) => setTimeout(r, 50));
    expect(done).toBe(false);
    expect(p.received.some((m) => 'method' in m && m.method === 'notifications/cancelled')).toBe(true);
    expect(p.forwarder.size).toBe(0);
  });

  it('failAll ends every request in flight; detached, a forward fails at once', async () => {
    const p = await pair();
    const pending = forward(p, { name: 'slow', arguments: {} }).outcome;
    p.forwarder.failAll('the connection closed');
    expect(await pending).toEqual({ error: { code: -32000, message: 'the connection closed' } });
    p.forwarder.detach();
    expect(p.forwarder.attached).toBe(false);
    expect(await forward(p, { name: 'echo', arguments: { message: 'x' } }).outcome).toEqual({ error: { code: -32000, message: 'not connected' } });
  });
});

describe('RawForwarder on a 2026-07-28 connection', () => {
  /** What the SDK's handler is given, for each message the transport receives. */
  function seenThrough(modern: boolean, messages: JSONRPCMessage[]): JSONRPCMessage[] {
    const seen: JSONRPCMessage[] = [];
    const transport = { onmessage: (m: JSONRPCMessage) => void seen.push(m) } as unknown as Parameters<RawForwarder['attach']>[0];
    new RawForwarder().attach(transport, { modern });
    for (const message of messages) transport.onmessage!(message);
    return seen;
  }
  const bare = { jsonrpc: '2.0', id: 7, result: { content: [] } } as JSONRPCMessage;
  const typed = { jsonrpc: '2.0', id: 8, result: { resultType: 'input_required', requestState: 's' } } as JSONRPCMessage;
  const failed = { jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'no' } } as JSONRPCMessage;
  const request = { jsonrpc: '2.0', id: 10, method: 'ping' } as JSONRPCMessage;

  it.each([
    [
      'modern: a result without resultType is read as complete; others pass as they are',
      true,
      [{ ...bare, result: { content: [], resultType: 'complete' } }, typed, failed, request],
    ],
    ['legacy: nothing is touched (a 2025 result has no resultType)', false, [bare, typed, failed, request]],
  ])('%s', (_, modern, expected) => {
    expect(seenThrough(modern as boolean, [bare, typed, failed, request])).toEqual(expected);
  });
});
