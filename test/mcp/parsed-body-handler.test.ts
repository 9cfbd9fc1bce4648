import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { readJson } from '../../src/mcp/http/http-wire.js';
import { parsedBodyHandler } from '../../src/mcp/http/parsed-body-handler.js';

/**
 * mcp/http/parsed-body-handler.ts stands in for the SDK's toNodeHandler on the 2026 leg: the same
 * real SDK handler behind both, the same requests, the same answers (status, content type, body),
 * the event stream too, and the client's leaving seen by the handler as its request's abort.
 */
let aborted: Promise<void>;
let heardAbort: () => void;
const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: 'diff', version: '1' }, { capabilities: { logging: {} } });
    server.registerTool('echo', { inputSchema: { message: z.string() } }, ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }));
    // Sends a notification before its result: the SDK answers with an event stream.
    server.registerTool('chatty', { inputSchema: {} }, async (_args, ctx) => {
      await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data: 'working' } });
      return { content: [{ type: 'text', text: 'done' }] };
    });
    // Waits until the client goes away.
    server.registerTool('waits', { inputSchema: {} }, async (_args, ctx) => {
      await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data: 'waiting' } });
      await new Promise<void>((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => resolve(), { once: true }));
      heardAbort();
      return { content: [] };
    });
    return server;
  },
  { legacy: 'reject' },
);

const ours = parsedBodyHandler(handler);
const sdks = toNodeHandler(handler);
const servers: Server[] = [];
const urls: Record<'ours' | 'sdk', string> = { ours: '', sdk: '' };

async function listen(serve: (req: IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>): Promise<string> {
  const server = createServer((req, res) => void serve(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

beforeAll(async () => {
  urls.ours = await listen(async (req, res) => ours(req, res, await readJson(req, 1 << 20)));
  urls.sdk = await listen((req, res) => sdks(req, res));
});
afterAll(async () => {
  await handler.close();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'diff', version: '1' },
};
/** A client that asked for log lines: a tool's log line before its result makes the answer an event stream. */
const LOGGING = { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'debug' };

async function post(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}, signal?: AbortSignal) {
  const params = body.params as { name?: string } | undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': String(body.method),
      ...(params?.name ? { 'mcp-name': params.name } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  return response;
}

const answer = async (url: string, body: Record<string, unknown>, headers?: Record<string, string>) => {
  const response = await post(url, body, headers);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
};

describe('parsedBodyHandler answers as toNodeHandler does', () => {
  it.each([
    ['a tools/call (JSON)', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' }, _meta: ENVELOPE } }, {}],
    ['a tools/list', { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { _meta: ENVELOPE } }, {}],
    ['an unknown tool', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope', arguments: {}, _meta: ENVELOPE } }, {}],
    ['arguments of the wrong type', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { message: 7 }, _meta: ENVELOPE } }, {}],
    [
      'a call that notifies first (an event stream)',
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'chatty', arguments: {}, _meta: LOGGING } },
      {},
    ],
    ['a notification (202, no body)', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9, _meta: ENVELOPE } }, {}],
    [
      'headers that disagree with the body',
      { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' }, _meta: ENVELOPE } },
      { 'mcp-method': 'tools/list' },
    ],
    [
      'an unsupported revision',
      { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } },
      { 'mcp-protocol-version': '2099-01-01' },
    ],
    ['a body that is no JSON-RPC message', { method: 'tools/list', params: { _meta: ENVELOPE } }, {}],
  ])('%s', async (_label, body, headers) => {
    const [mine, sdk] = [await answer(urls.ours, body, headers), await answer(urls.sdk, body, headers)];
    expect(mine).toEqual(sdk);
  });

  it('passes an event stream on: the log line, then the result', async () => {
    const body = { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'chatty', arguments: {}, _meta: LOGGING } };
    const mine = await answer(urls.ours, body);
    expect(mine.type).toBe('text/event-stream');
    expect(mine.body).toMatch(/working[\s\S]*"result"/);
  });

  it('writes a JSON answer as one body of known length', async () => {
    const response = await post(urls.ours, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'hi' }, _meta: ENVELOPE },
    });
    const text = await response.text();
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'Echo: hi' }] } });
  });

  it("tells the handler when the client leaves in the middle of an event stream (the request's abort)", async () => {
    aborted = new Promise<void>((resolve) => (heardAbort = resolve));
    const leave = new AbortController();
    const response = await post(
      urls.ours,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'waits', arguments: {}, _meta: LOGGING } },
      {},
      leave.signal,
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    await reader.read(); // the notification: the call is under way
    leave.abort();
    await expect(aborted).resolves.toBeUndefined();
  });
});
