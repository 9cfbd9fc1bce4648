import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * The HTTP hot path (a 2025 session's tools/call answered as one JSON response) holds with
 * HTTP/1.1 pipelining: requests written back to back on one keep-alive connection, before any
 * answer, each get their own answer, in the order they were sent, even when they finish out of order.
 */
const HEADERS = 'content-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-11-25\r\n';

function post(url: URL, body: object, session?: string): string {
  const text = JSON.stringify(body);
  const id = session ? `mcp-session-id: ${session}\r\n` : '';
  return `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\n${HEADERS}${id}content-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
}

/** Writes `raw` on one connection and reads until `count` responses with a body have arrived: their status, headers and bodies. */
function exchange(url: URL, raw: string, count: number): Promise<{ status: number; headers: string; body: string }[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(raw));
    let data = '';
    const parsed = () => {
      const out: { status: number; headers: string; body: string }[] = [];
      let rest = data;
      while (rest.length) {
        const end = rest.indexOf('\r\n\r\n');
        if (end < 0) break;
        const headers = rest.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? NaN);
        if (!Number.isFinite(length) || rest.length < end + 4 + length) break;
        out.push({ status: Number(headers.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
        rest = rest.slice(end + 4 + length);
      }
      return out;
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
      const got = parsed();
      if (got.length >= count) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`the connection closed after ${parsed().length} of ${count} answers: ${data}`)));
  });
}

describe('serve --http answers pipelined tools/call on a 2025 session in order', () => {
  let served: InProcessServe;
  let url: URL;
  let session: string;
  beforeAll(async () => {
    served = await serveHttpInProcess(writeConfig({ mcp_servers: { everything: SERVERS.everything } }));
    url = new URL('/mcp', served.url);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    const send = (body: object) =>
      fetch(url, { method: 'POST', headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(body) });
    const opened = await send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    await (await send({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
    // The first listing connects the view's server; the calls below take the hot path.
    expect(await (await send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).text()).toContain('everything__echo');
  });
  afterAll(() => served.close());

  it('three calls written at once, a slow one first: three answers, in the order asked', async () => {
    const calls = [
      { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.4, steps: 2 } } },
      { jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'b' } } },
      { jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'c' } } },
    ];
    const answers = await exchange(url, calls.map((c) => post(url, c, session)).join(''), 3);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const bodies = answers.map((a) => JSON.parse(a.body) as { id: number; result: { content: { text: string }[] } });
    expect(bodies.map((b) => b.id)).toEqual([11, 12, 13]);
    expect(bodies[0]!.result.content[0]!.text).toMatch(/completed/i);
    expect(bodies.slice(1).map((b) => b.result.content[0]!.text)).toEqual(['Echo: b', 'Echo: c']);
    expect(
      answers.every((a) => /content-type: application\/json/i.test(a.headers)),
      'one JSON answer each, no stream',
    ).toBe(true);
  });
});
