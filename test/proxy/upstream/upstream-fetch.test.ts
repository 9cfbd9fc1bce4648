import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { upstreamFetch } from '../../../src/proxy/upstream/upstream-fetch.js';
import { freePort } from '../../helpers/upstreams.js';

/** Real sockets and Node's own fetch against a real HTTP server in this process. */

const servers: Server[] = [];
// A fetch made first, so that Node's undici and its dispatcher exist whatever upstreamFetch does
// to load them: the test below is about the new connection, not about a process's first request.
beforeAll(async () => {
  await fetch(`http://127.0.0.1:${await freePort()}/`).catch(() => undefined);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done).closeAllConnections())));
});

/** A server that resets every connection at its first request, and counts the requests it saw. */
async function resettingServer(): Promise<{ url: URL; seen: () => number }> {
  let seen = 0;
  const server = createServer((req) => {
    seen++;
    req.socket.resetAndDestroy();
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), seen: () => seen };
}

const listing = { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) };

describe('upstreamFetch', () => {
  it('does not send again a request whose new connection the server reset (it may have read it)', async () => {
    const { url, seen } = await resettingServer();
    const failures: Error[] = [];
    const send = upstreamFetch(
      (input, init) => fetch(input, init),
      url,
      (error) => failures.push(error),
    );
    await expect(send(url, listing)).rejects.toThrow('fetch failed');
    expect(seen()).toBe(1);
    expect(failures).toHaveLength(1);
  });

  it('tells the deadline of failures to reach the upstream, not of other hosts (an OAuth server)', async () => {
    const upstream = new URL(`http://127.0.0.1:${await freePort()}/mcp`);
    const elsewhere = new URL(`http://127.0.0.1:${await freePort()}/.well-known/oauth-authorization-server`);
    const failures: Error[] = [];
    const send = upstreamFetch(
      (input, init) => fetch(input, init),
      upstream,
      (error) => failures.push(error),
    );
    await expect(send(elsewhere, { method: 'GET' })).rejects.toThrow('fetch failed');
    expect(failures).toHaveLength(0);
    await expect(send(upstream, listing)).rejects.toThrow('fetch failed');
    expect(failures).toHaveLength(1);
  });
});
