import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, spawnTracked, stopChild, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, serveStdioInProcess, type InProcessServe } from '../helpers/in-process.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * Arguments nested deeper than mcpkit's limit (core/nesting.ts) are INVALID_INPUT from mcpkit,
 * for any tools/call through serve (the router, the hot path, a code run's inner calls), in both
 * eras, before any upstream is called: server-memory writes its file on create_entities, so a file
 * without the entity says it was never called. Until this limit, 5,000 levels overflowed mcpkit's
 * stack and were answered UPSTREAM_ERROR of a server never called. The requests are written as
 * raw JSON text: an SDK client's own JSON.stringify cannot send 5,000 levels.
 */

/** The JSON text of `{ "n": { "n": ... {} } }`, `levels` objects deep. */
const deepText = (levels: number) => `${'{"n":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
/** create_entities' arguments with an entity whose extra field is `extra` (JSON text). */
const entityText = (name: string, extra: string) => `{"entities":[{"name":${JSON.stringify(name)},"entityType":"t","observations":[],"extra":${extra}}]}`;

type Answer = { result?: CallToolResult; error?: { code: number; message: string } };
/** Sends a tools/call whose arguments (and _meta) are JSON text as given; its answer. */
type RawCall = (name: string, args: string, meta?: string) => Promise<Answer>;

let memoryFile: string;
let config: string;
let http: InProcessServe;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  memoryFile = join(tempDir(), 'memory.json');
  config = writeConfig({
    mcp_servers: { memory: { ...SERVERS.memory, env: { MEMORY_FILE_PATH: memoryFile } } },
    tool_views: { code: { servers: ['memory'], exposure: 'code' } },
  });
  http = await serveHttpInProcess(config, { env: cleanEnv() });
});
afterAll(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
  await http?.close();
});

const written = () => (existsSync(memoryFile) ? readFileSync(memoryFile, 'utf8') : '');
const errorOf = (answer: Answer) => (answer.result?.structuredContent as { error?: { code: string; message: string } } | undefined)?.error;
const callBody = (id: number, name: string, args: string, meta?: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${args}${meta ? `,"_meta":${meta}` : ''}}}`;

/** `mcpkit serve` as a process over stdio, spoken to in raw lines. */
async function stdioProcess(): Promise<RawCall> {
  const child = spawnTracked(process.execPath, [BIN, 'serve', '--config', config, '--exposure', 'direct'], {
    env: cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  closers.push(() => stopChild(child));
  const waiting = new Map<number, (answer: Answer) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as Answer & { id?: number };
    if (typeof message.id === 'number') waiting.get(message.id)?.(message);
  });
  let id = 0;
  const send = (text: string, expectsAnswer: boolean) =>
    new Promise<Answer>((resolve) => {
      if (expectsAnswer) waiting.set(id, resolve);
      child.stdin.write(`${text}\n`);
      if (!expectsAnswer) resolve({});
    });
  await send(
    `{"jsonrpc":"2.0","id":${++id},"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
    true,
  );
  await send('{"jsonrpc":"2.0","method":"notifications/initialized"}', false);
  return (name, args, meta) => send(callBody(++id, name, args, meta), true);
}

/** A 2025-11-25 session over HTTP, in raw requests. */
async function httpSession(): Promise<RawCall> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  const post = async (body: string, session?: string) => {
    const response = await fetch(`${http.url}/mcp`, { method: 'POST', headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) }, body });
    return { response, text: await response.text() };
  };
  const init = await post(
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}',
  );
  const session = init.response.headers.get('mcp-session-id')!;
  await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', session);
  let id = 1;
  return async (name, args, meta) => answerOf((await post(callBody(++id, name, args, meta), session)).text);
}

/** 2026-07-28 requests over HTTP, in raw text: each one on its own, its envelope in _meta. */
function modernRequests(): RawCall {
  let id = 0;
  return async (name, args, meta) => {
    const envelope = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}`;
    const body = callBody(++id, name, args, meta ? `{${envelope},${meta.slice(1)}` : `{${envelope}}`);
    const response = await fetch(`${http.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      body,
    });
    return answerOf(await response.text());
  };
}

/** The answer in a JSON body, or in the last event of a stream. */
function answerOf(text: string): Answer {
  if (text.startsWith('{')) return JSON.parse(text) as Answer;
  const events = text.split('\n').filter((l) => l.startsWith('data:'));
  if (!events.length) throw new Error(`not an answer: ${text.slice(0, 300)}`);
  return JSON.parse(events.pop()!.slice(5)) as Answer;
}

describe('arguments nested too deep are INVALID_INPUT from mcpkit, and no upstream is called', () => {
  it.each([
    ['stdio, a process', stdioProcess],
    ['HTTP, 2025-11-25', httpSession],
    ['HTTP, 2026-07-28', async () => modernRequests()],
  ])('%s: 5,000 levels, on the first call (the router) and the next ones (the hot path)', async (how, connect) => {
    const call = await connect();
    const deep = deepText(5000);
    // A shallow call first: the catalog is then known, and the next calls may take the hot path.
    const shallow = await call('memory__create_entities', entityText(`ok ${how}`, deepText(3)));
    expect(shallow.result?.isError, JSON.stringify(shallow)).toBeFalsy();
    for (const attempt of [1, 2]) {
      const name = `deep ${how} ${attempt}`;
      const answer = await call('memory__create_entities', entityText(name, deep));
      expect(errorOf(answer), JSON.stringify(answer).slice(0, 500)).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/arguments are nested deeper than 64 levels/),
      });
      expect(written()).not.toContain(name);
    }
    // _meta is passed on as it came (the hot path forwards it): it is held to the same limit.
    const meta = await call('memory__create_entities', entityText(`deep meta ${how}`, '{}'), `{"x":${deepText(200)}}`);
    expect(errorOf(meta)).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/_meta is nested deeper than 64 levels/) });
    expect(written()).not.toContain(`deep meta ${how}`);
  });

  it("a code run's inner call with deep arguments is INVALID_INPUT in the script, and the upstream is not called", async () => {
    const { client } = await serveStdioInProcess({ config, flags: { view: 'code', exposure: undefined } });
    closers.push(() => client.close());
    const answer = (await client.callTool({
      name: 'code_run_code',
      arguments: {
        code: `let v = {}; for (let i = 0; i < 5000; i++) v = { n: v };
          try { await tools.memory.create_entities({ entities: [{ name: 'deep script', entityType: 't', observations: [], extra: v }] }); return 'called'; }
          catch (e) { return { code: e.code, message: e.message }; }`,
      },
    })) as CallToolResult;
    expect((answer.structuredContent as { result?: unknown }).result).toMatchObject({ code: 'INVALID_INPUT' });
    expect(written()).not.toContain('deep script');
  });

  it('64 levels are served', async () => {
    const call = await httpSession();
    // The arguments object is level 1; entities, its item and extra are levels 2 to 4; then 60 more.
    const answer = await call('memory__create_entities', entityText('at the limit', deepText(60)));
    expect(answer.result?.isError, JSON.stringify(answer).slice(0, 500)).toBeFalsy();
    expect(written()).toContain('at the limit');
  });
});
