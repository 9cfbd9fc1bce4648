import { describe, expect, it } from 'vitest';
import { detailedTask, TaskStore } from '../../src/mcp/tasks/task-store.js';
import { declaresTasks, hostMayTake, mcpNameValue, modernCallResult } from '../../src/mcp/tasks/task-host.js';

const bounds = { maxTtlMs: 10_000, maxPerOwner: 2, maxBytesPerOwner: 1000 };

describe('TaskStore', () => {
  it("keeps each owner's tasks to itself, up to its bound", () => {
    let now = 0;
    const store = new TaskStore(() => now);
    const a = store.create('alice', {}, new AbortController(), bounds)!;
    expect(store.get(a.id, 'alice')).toBe(a);
    expect(store.get(a.id, 'bob')).toBeUndefined();
    expect(store.create('alice', {}, new AbortController(), bounds)).toBeDefined();
    expect(store.create('alice', {}, new AbortController(), bounds)).toBeUndefined();
    expect(store.create('bob', {}, new AbortController(), bounds)).toBeDefined();
    now = 5;
    expect(store.ownedBy('alice')).toHaveLength(2);
  });

  it('drops a task past its ttl, stopping it if it still runs; the requested ttl is capped', () => {
    let now = 0;
    const store = new TaskStore(() => now);
    const abort = new AbortController();
    const short = store.create('alice', {}, abort, bounds, 100)!;
    const capped = store.create('alice', {}, new AbortController(), bounds, 10 ** 9)!;
    expect([short.ttlMs, capped.ttlMs]).toEqual([100, 10_000]);
    now = 99;
    expect(store.get(short.id, 'alice')).toBeDefined();
    now = 100;
    expect(store.get(short.id, 'alice')).toBeUndefined();
    expect(abort.signal.aborted).toBe(true);
  });

  it("keeps a call's arguments only within the owner's bytes, and never once the task has ended", () => {
    const store = new TaskStore(() => 1);
    const small = store.create('alice', { name: 'echo', arguments: { text: 'x'.repeat(100) } }, new AbortController(), bounds)!;
    expect(small.params?.arguments).toEqual({ text: 'x'.repeat(100) });
    expect(store.bytesOf('alice')).toBeGreaterThan(100);
    // 3.9 MB of extra argument (the finding): the task is made, without it, and says so.
    const large = store.create('alice', { name: 'echo', arguments: { extra: 'y'.repeat(3_900_000) }, _meta: { k: 1 } }, new AbortController(), bounds)!;
    expect(large.argumentsDropped).toBe(true);
    expect(large.params).toEqual({ name: 'echo', _meta: { k: 1 } });
    expect(store.bytesOf('alice')).toBeLessThan(bounds.maxBytesPerOwner);
    store.update(small, { status: 'completed', result: { content: [] } });
    expect(small.params).toBeUndefined();
    expect(small.bytes).toBe(Buffer.byteLength(JSON.stringify({ content: [] })));
  });

  it('a terminal task stays as it ended; what it holds is counted', () => {
    const store = new TaskStore(() => 1);
    const task = store.create('alice', {}, new AbortController(), bounds)!;
    store.update(task, { status: 'input_required', inputRequests: { q: { method: 'elicitation/create' } } });
    expect(detailedTask(task)).toMatchObject({ status: 'input_required', inputRequests: { q: {} }, resultType: 'complete' });
    store.update(task, { status: 'completed', result: { content: [{ type: 'text', text: 'ok' }] } });
    store.update(task, { status: 'failed', error: { code: 1 } });
    expect(task.status).toBe('completed');
    expect(detailedTask(task)).not.toHaveProperty('inputRequests');
    expect(detailedTask(task)).toMatchObject({ result: { content: [{ text: 'ok' }] } });
    expect(store.bytesOf('alice')).toBe(Buffer.byteLength(JSON.stringify({ content: [{ type: 'text', text: 'ok' }] })));
  });

  it.each([
    ['an id of this process', (s: TaskStore) => s.create('a', {}, new AbortController(), bounds)!.id, false],
    ['an id of another process', () => '0badf00d.8b0e9c1e-1f4e-4c39-9b5d-2f3e6c7a8b9c', true],
    ['anything else', () => 'tasks-conformance-nonexistent-1', false],
  ])('lostTask: %s', (_what, id, lost) => {
    const store = new TaskStore(() => 0);
    expect(store.lostTask(id(store))).toBe(lost);
  });

  it('ids carry the replica id, and only that replica counts an id as its own lost one', () => {
    const store = new TaskStore(() => 0, 'r1');
    expect(store.create('a', {}, new AbortController(), bounds)!.id).toMatch(/^r1\.[0-9a-f]{8}\./);
    expect(store.lostTask('r1.0badf00d.8b0e9c1e-1f4e-4c39-9b5d-2f3e6c7a8b9c')).toBe(true);
    expect(store.lostTask('r2.0badf00d.8b0e9c1e-1f4e-4c39-9b5d-2f3e6c7a8b9c')).toBe(false);
  });
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
};
const callBody = (name: string, meta: Record<string, unknown> = ENVELOPE) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: {}, _meta: meta },
});
const callHeaders = (name: string | undefined, more: Record<string, string> = {}) => ({
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  ...(name !== undefined ? { 'mcp-name': name } : {}),
  ...more,
});

describe('hostMayTake: the host runs a call itself only where the SDK would have let it through', () => {
  it.each([
    ['headers and body agree', callBody('greet'), callHeaders('greet'), true],
    ['Mcp-Name in its Base64 form', callBody('grüß'), callHeaders(`=?base64?${Buffer.from('grüß').toString('base64')}?=`), true],
    ['Mcp-Name missing', callBody('greet'), callHeaders(undefined), false],
    ['Mcp-Name names another tool', callBody('greet'), callHeaders('other'), false],
    ['Mcp-Method missing', callBody('greet'), { 'mcp-protocol-version': '2026-07-28', 'mcp-name': 'greet' }, false],
    ['Mcp-Method names another method', callBody('greet'), callHeaders('greet', { 'mcp-method': 'tools/list' }), false],
    ['no version header', callBody('greet'), { 'mcp-method': 'tools/call', 'mcp-name': 'greet' }, false],
    ['the version header disagrees with the envelope', callBody('greet'), callHeaders('greet', { 'mcp-protocol-version': '2025-11-25' }), false],
    ['an envelope without its version', callBody('greet', { 'io.modelcontextprotocol/clientCapabilities': {} }), callHeaders('greet'), false],
  ])('%s', (_what, body, headers, want) => {
    expect(hostMayTake(body, headers)).toBe(want);
  });
});

describe('mcpNameValue', () => {
  it.each([
    [undefined, undefined],
    ['  greet ', 'greet'],
    [`=?base64?${Buffer.from('a b').toString('base64')}?=`, 'a b'],
    ['=?base64?not base64?=', '=?base64?not base64?='],
  ])('%j', (header, want) => {
    expect(mcpNameValue(header)).toBe(want);
  });
});

describe('modernCallResult: a result the host answers looks as the SDK would send it', () => {
  const info = { name: 'mcpkit', version: '1' };
  it.each([
    [{ content: [] }, { content: [], resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': info } }],
    [
      { content: [], _meta: { a: 1 } },
      { content: [], resultType: 'complete', _meta: { a: 1, 'io.modelcontextprotocol/serverInfo': info } },
    ],
    [
      { resultType: 'input_required', inputRequests: {} },
      { resultType: 'input_required', inputRequests: {}, _meta: { 'io.modelcontextprotocol/serverInfo': info } },
    ],
    [
      { content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'up' } } },
      { content: [], resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'up' } } },
    ],
  ])('%j', (result, want) => {
    expect(modernCallResult(result, info)).toEqual(want);
  });
});

describe('declaresTasks', () => {
  it.each([
    [{ _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } } }, true],
    [{ _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: {} } } }, false],
    [{ _meta: {} }, false],
    [undefined, false],
  ])('%j', (params, want) => {
    expect(declaresTasks(params)).toBe(want);
  });
});
