import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { upstreamFetch } from '../../../src/proxy/upstream/upstream-fetch.js';
import { freePort } from '../../helpers/upstreams.js';

/**
 * What the end of idle connections before a request leaves alone: a connection a request is under
 * way on (an event stream), and the connections of other origins (another server, an OAuth
 * server). Real sockets, Node's own fetch, real HTTP servers in this process that keep idle
 * connections for 3 s and say so (undici keeps them 1 s). The event loop is blocked past that
 * second, so that undici's own timer has not run when the next request is written: only the end
 * before the request can have acted. What each connection is when that request is written is read
 * inside undici's own sendHeaders message, before anything else of the loop runs.
 */

const SERVER_KEEP_MS = 3_000;
const CLIENT_KEEP_MS = 1_000;
const servers: Server[] = [];

beforeAll(async () => {
  // Node's undici and its dispatcher exist before the first test (upstream-fetch.test.ts does the same).
  await fetch(`http://127.0.0.1:${await freePort()}/`).catch(() => undefined);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done).closeAllConnections())));
});

/** A JSON answer to POST, and at GET /stream an event stream that stays open, which each POST writes to. */
async function server(): Promise<URL> {
  const streams: ServerResponse[] = [];
  const http = createServer((req, res) => {
    if (req.method === 'GET') {
      streams.push(res.writeHead(200, { 'content-type': 'text/event-stream' }));
      return void res.write('data: opened\n\n');
    }
    req.resume().on('end', () => {
      for (const stream of streams) stream.write('data: posted\n\n');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  http.keepAliveTimeout = SERVER_KEEP_MS;
  servers.push(http);
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  return new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
}

/**
 * undici's own messages, as they come: the socket each request was written on, by origin, in order;
 * and, as each request to `origin` is made (in the dispatch, right after the end of idle
 * connections and before anything else of the loop runs), which of the sockets `watched` names
 * were destroyed.
 */
function undiciSays(origin: URL, watched: () => object[]) {
  const written = new Map<string, object[]>();
  const destroyedAtDispatch: boolean[][] = [];
  const onWrite = (message: unknown) => {
    const { request, socket } = message as { request: { origin: unknown }; socket: object };
    const key = String(request.origin);
    written.set(key, [...(written.get(key) ?? []), socket]);
  };
  const onCreate = (message: unknown) => {
    const { request } = message as { request: { origin: unknown } };
    if (String(request.origin) === origin.origin) destroyedAtDispatch.push(watched().map((s) => (s as { destroyed: boolean }).destroyed));
  };
  subscribe('undici:client:sendHeaders', onWrite);
  subscribe('undici:request:create', onCreate);
  return {
    sockets: (url: URL) => written.get(url.origin) ?? [],
    destroyedAtDispatch,
    stop: () => {
      unsubscribe('undici:client:sendHeaders', onWrite);
      unsubscribe('undici:request:create', onCreate);
    },
  };
}

/** Blocks the thread (nothing of its event loop runs) until undici's keeping of the connections has passed: a lower bound only. */
function blockPastClientKeeping(): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const until = performance.now() + CLIENT_KEEP_MS + 100;
  while (performance.now() < until) Atomics.wait(pause, 0, 0, 20);
}

const post = (send: ReturnType<typeof upstreamFetch>, url: URL) =>
  send(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } }) });
const sender = (url: URL) =>
  upstreamFetch(
    (input, init) => fetch(input, init),
    url,
    () => {},
  );

describe('the end of idle connections before a request', () => {
  it('leaves alone a connection a stream is open on, and ends the idle one', async () => {
    const url = await server();
    const send = sender(url);
    const watched: object[] = [];
    const undici = undiciSays(url, () => watched);
    const stream = await send(url, { method: 'GET' });
    const reader = stream.body!.getReader();
    try {
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('opened');
      await (await post(send, url)).text();
      const [streaming, idle] = undici.sockets(url);
      watched.push(streaming!, idle!);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the connection back in undici's pool
      blockPastClientKeeping();
      await (await post(send, url)).text();
      // As the second POST was dispatched: the idle connection was ended, the stream's was not ...
      expect(undici.destroyedAtDispatch.at(-1)).toEqual([false, true]);
      // ... and the POST went on a new connection.
      expect(undici.sockets(url)).toHaveLength(3);
      expect(watched).not.toContain(undici.sockets(url)[2]);
      // The stream, under way all along, is still open: it carries what each POST wrote to it.
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('posted');
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('posted');
    } finally {
      undici.stop();
      await reader.cancel();
    }
  });

  it("leaves alone the idle connections of other origins (another server's, an OAuth server's)", async () => {
    const [upstream, elsewhere] = [await server(), await server()];
    const send = sender(upstream);
    const watched: object[] = [];
    const undici = undiciSays(upstream, () => watched);
    try {
      await (await post(send, upstream)).text();
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Another host's fetch, as the OAuth fetch makes, through the same shared pool; its answer
      // over, the loop is blocked at once, so that undici's own timer cannot have ended it.
      expect(await (await fetch(elsewhere, { method: 'POST', body: '{}' })).text()).toBe('{}');
      watched.push(undici.sockets(elsewhere)[0]!, undici.sockets(upstream)[0]!);
      blockPastClientKeeping();
      await (await post(send, upstream)).text();
      // As the upstream's request was dispatched: its own idle connection was ended, the other origin's, as idle, was not.
      expect(undici.destroyedAtDispatch.at(-1)).toEqual([false, true]);
      expect(undici.sockets(upstream)).toHaveLength(2);
    } finally {
      undici.stop();
    }
  });
});
