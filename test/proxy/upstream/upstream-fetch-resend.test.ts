import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect as connectSocket, type AddressInfo, type Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { upstreamFetch } from '../../../src/proxy/upstream/upstream-fetch.js';
import { poolOptions } from '../../../src/proxy/upstream/pool-options.js';
import { freePort, waitFor } from '../../helpers/upstreams.js';

/**
 * The resend of a side-effect-free request whose reused connection the server ended unanswered
 * (the keep-alive race): it goes on a connection of its own, made as the shared pool makes its
 * connections, and that connection is ended once the answer is over, never left open. Real
 * sockets, Node's own fetch, a real HTTP server in this process that ends its first connection at
 * the second request, and keeps every other open far longer than a test runs (only the client can
 * have closed it).
 */

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
const servers: Server[] = [];
beforeAll(async () => {
  // Node's undici and its dispatcher exist before the first test (upstream-fetch.test.ts does the same).
  await fetch(`http://127.0.0.1:${await freePort()}/`).catch(() => undefined);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done).closeAllConnections())));
});

interface Connection {
  requests: number;
  closed: boolean;
}

/** The server: its first connection answers one request and is ended at the second; `answer` answers the resend (on a later connection). */
async function racingServer(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const connections: Connection[] = [];
  const of = new Map<Socket, Connection>();
  const server = createServer((req, res) => {
    const connection = of.get(req.socket)!;
    connection.requests++;
    if (connection !== connections[0]) return answer(req, res);
    if (connection.requests === 2) return void req.socket.destroy();
    res.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER);
  });
  server.keepAliveTimeout = 600_000;
  server.on('connection', (socket: Socket) => {
    const connection = { requests: 0, closed: false };
    connections.push(connection);
    of.set(socket, connection);
    socket.on('close', () => (connection.closed = true));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), connections };
}

const listing = { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) };
const ANSWER = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
const send = (url: URL) =>
  upstreamFetch(
    (input, init) => fetch(input, init),
    url,
    () => {},
  );

/** A listing answered on the first connection, then one the server ends unanswered on it: sent again on a second. */
async function resent(url: URL, connections: Connection[]): Promise<Response> {
  const fetchIt = send(url);
  expect(await (await fetchIt(url, listing)).text()).toBe(ANSWER);
  // undici gives the connection back to its pool a few turns after the answer (a timer comes after them).
  await new Promise((resolve) => setTimeout(resolve, 20));
  const response = await fetchIt(url, listing);
  expect(connections.map((c) => c.requests)).toEqual([2, 1]);
  expect(connections[0]!.closed).toBe(true);
  return response;
}

describe('a resent request', () => {
  it('ends its own connection once its answer has been read', async () => {
    const { url, connections } = await racingServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER));
    const response = await resent(url, connections);
    expect(await response.text()).toBe(ANSWER);
    // The server keeps it open for minutes: closed, it was the client, as soon as the answer was over.
    expect(await waitFor(() => connections[1]!.closed, 60_000)).toBe(true);
  });

  it('ends its own connection once a streamed answer is cancelled part way', async () => {
    const { url, connections } = await racingServer((_req, res) => {
      // An event stream that is never ended by the server.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: message\ndata: ${ANSWER}\n\n`);
    });
    const response = await resent(url, connections);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(ANSWER);
    await reader.cancel();
    expect(await waitFor(() => connections[1]!.closed, 60_000)).toBe(true);
  });

  it("is connected as the shared pool connects (its connector, and the pool's other options)", async () => {
    const { url, connections } = await racingServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER));
    type Pool = { destroy(): Promise<void> };
    const holder = globalThis as unknown as Record<symbol, Pool>;
    const shared = holder[GLOBAL_DISPATCHER]!;
    const Kind = shared.constructor as new (options: object) => Pool;
    const connected: string[] = [];
    // The process's pool, as a preload that sets undici's global dispatcher makes it: its own connector.
    const pool = new Kind({
      connect: (options: { hostname: string; port: string }, done: (error: Error | null, socket: Socket | null) => void) => {
        connected.push(`${options.hostname}:${options.port}`);
        const socket = connectSocket({ host: options.hostname, port: Number(options.port) });
        socket.once('connect', () => done(null, socket));
        socket.once('error', (error) => done(error, null));
        return socket;
      },
      keepAliveTimeout: 30_000,
    });
    holder[GLOBAL_DISPATCHER] = pool;
    try {
      expect(poolOptions(pool)).toMatchObject({ connect: expect.any(Function), keepAliveTimeout: 30_000 });
      const response = await resent(url, connections);
      expect(await response.text()).toBe(ANSWER);
      // The first connection and the resend's: both made by the pool's connector.
      expect(connected).toEqual([`127.0.0.1:${url.port}`, `127.0.0.1:${url.port}`]);
      expect(await waitFor(() => connections[1]!.closed, 60_000)).toBe(true);
    } finally {
      holder[GLOBAL_DISPATCHER] = shared;
      await pool.destroy().catch(() => undefined);
    }
  });
});

describe('poolOptions', () => {
  it('is what undici keeps of an Agent made with options, and nothing of any other object', () => {
    const Kind = (globalThis as unknown as Record<symbol, { constructor: new (options: object) => object }>)[GLOBAL_DISPATCHER]!.constructor;
    expect(poolOptions(new Kind({ keepAliveTimeout: 1_234, connect: { timeout: 2_000 } }))).toMatchObject({
      keepAliveTimeout: 1_234,
      connect: { timeout: 2_000 },
    });
    expect(poolOptions({})).toEqual({});
    expect(poolOptions({ [Symbol('options')]: 'not an object' })).toEqual({});
  });
});
