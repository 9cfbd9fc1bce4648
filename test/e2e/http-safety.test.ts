import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, spawnTracked, stopChild, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';
import { FIXTURES, childPids, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * serve --http is safe by default: nothing a web page or a stranger on the port could use to run a command.
 * Where what is asked is serve's answers, serve runs in this process (serveHttpInProcess: the same
 * code, without a process start); where its process is the point (its children, its stderr while
 * this process reads slowly), it is a process.
 */
async function serveHttp(config: string, args: string[] = []) {
  const child = spawnTracked(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--exposure', 'direct', ...args], {
    env: cleanEnv({ MCPKIT_CONFIG: config }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/\S+)\/mcp/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once('exit', () => reject(new Error(`serve exited: ${err}`)));
  });
  return { child, url };
}

async function toolNames(url: string, token?: string): Promise<string[]> {
  const client = new Client({ name: 'safety', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  );
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

const HOST_TOOLS = ['server_add', 'server_remove', 'server_test', 'server_import', 'registry_add', 'view_create', 'view_add_server', 'filter_set'];

describe.concurrent('serve --http without authentication', () => {
  // One serve of an empty config for the tests that only ask it something.
  let bare: ReturnType<typeof serveHttpInProcess> | undefined;
  const bareServe = () => (bare ??= serveHttpInProcess(writeConfig({})));
  afterAll(async () => {
    if (bare) await (await bare).close();
  });

  it('does not offer tools that write the config or start processes', async () => {
    const names = await toolNames((await bareServe()).url);
    expect(names).toEqual(expect.arrayContaining(['server_list', 'view_list', 'config_show', 'list_dir']));
    for (const tool of HOST_TOOLS) expect(names).not.toContain(tool);
  });

  it('offers them with a token, or when the config says so explicitly', async () => {
    const withToken = await serveHttpInProcess(writeConfig({ serve: { token: 's3cret-token' } }));
    try {
      expect(await toolNames(withToken.url, 's3cret-token')).toEqual(expect.arrayContaining(HOST_TOOLS));
    } finally {
      await withToken.close();
    }
    const optedIn = await serveHttpInProcess(writeConfig({ serve: { host_tools_without_auth: true } }));
    try {
      expect(await toolNames(optedIn.url)).toEqual(expect.arrayContaining(HOST_TOOLS));
    } finally {
      await optedIn.close();
    }
  });

  it('answers a malformed %-escape in the path with 400, not a 500 "bug"', async () => {
    const r = await fetch(`${(await bareServe()).url}/views/%E0%A4%A`);
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: { code: 'INVALID_INPUT' } });
  });

  it('answers a request target the URL parser refuses ("//": a host, no path) with 400, not a 500 "bug"', async () => {
    const target = '//';
    const { hostname, port } = new URL((await bareServe()).url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write(`GET ${target} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nconnection: close\r\n\r\n`));
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (data += d));
      socket.once('close', () => resolve(data));
      socket.once('error', reject);
    });
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'INVALID_INPUT', message: expect.stringContaining('is not a path') } });
  });

  it.each([['--token='], ['--host='], ['--view=']])('refuses an empty %s as bad usage', async (flag) => {
    const r = await runCli(['serve', '--http', '--port', '0', flag]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Error [INVALID_INPUT]: ${flag.slice(0, -1)} is empty`);
  });
});

describe.concurrent('HTTP sessions', () => {
  const init = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  async function open(url: string): Promise<string> {
    const r = await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify(init(1)) });
    await r.text();
    return r.headers.get('mcp-session-id')!;
  }
  async function ping(url: string, session: string): Promise<number> {
    const r = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    await r.text();
    return r.status;
  }

  it('end after serve.session_idle_ms without use (404 afterwards), and live ones go on', async () => {
    // The window outlasts any pause between the busy session's pings on a loaded machine (400 ms did
    // not, at load 30, nor 2 s at load 14: serve runs in this worker, whose loop stalls with it); the
    // idle one is asked once, well after the window and a sweep (a quarter of it) are past.
    const { close, url } = await serveHttpInProcess(writeConfig({ serve: { session_idle_ms: 4000 } }));
    try {
      const idle = await open(url);
      const busy = await open(url);
      for (const since = Date.now(); Date.now() - since < 9_000;) {
        expect(await ping(url, busy)).toBe(200);
        // 300 ms: far below the window (a stall of 3.7 s would still not end it), at half the pings of 150 ms.
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(await ping(url, idle)).toBe(404);
      expect(await ping(url, busy)).toBe(200);
    } finally {
      await close();
    }
  });

  // One serve of server-everything for the two tests that call it (each on sessions of its own). The
  // idle window must outlast a session's own start (initialize, then a listing) on a loaded machine
  // (1.5 s did not at load 20, 3 s not at load 30), and end well within the in-flight calls (20 s),
  // so that a second session is seen ended while the first is still busy.
  let everything: ReturnType<typeof serveHttpInProcess> | undefined;
  const everythingServe = () =>
    (everything ??= serveHttpInProcess(writeConfig({ mcp_servers: { everything: SERVERS.everything }, serve: { session_idle_ms: 8000 } })));
  afterAll(async () => {
    if (everything) await (await everything).close();
  });

  it('refuse a tools/call without the right Content-Type or Accept on the hot path as on the ordinary one', async () => {
    const { url } = await everythingServe();
    const session = await open(url);
    const post = async (body: object, extra: Record<string, string> = {}) => {
      const r = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', ...extra },
        body: JSON.stringify(body),
      });
      await r.text();
      return `${r.status} ${r.headers.get('content-type')}`;
    };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).toMatch(/^200 /);
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'x' } } });
    // The catalog is known: this one takes the hot path, which answers with one JSON response.
    expect(await post(call(3))).toBe('200 application/json');
    expect(await post(call(4), { 'content-type': 'text/plain' })).toMatch(/^415 /);
    expect(await post(call(5), { accept: 'application/json' })).toMatch(/^406 /);
  }, 30_000);

  it('with a call in flight are not idle, whatever session_idle_ms says', async () => {
    const { url } = await everythingServe();
    const clients: Client[] = [];
    const connect = async () => {
      const client = new Client({ name: 'in-flight', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
      clients.push(client);
      return client;
    };
    try {
      // A session that goes idle before the calls start: it is ended while they run (its last
      // request was before theirs, so its window ends first), the busy one is not. The calls
      // outlast the window and a sweep (8 + 2 s) from their start by 10 s: the sweep's timer may
      // lag on a loaded machine, and a sweep after the calls end would prove nothing of them.
      const idle = await connect();
      await idle.listTools();
      const slow = await connect();
      await slow.listTools(); // the catalog is known: a call without progress takes the hot path
      const long = { name: 'everything__trigger-long-running-operation', arguments: { duration: 20, steps: 10 } };
      let progress = 0;
      const streamed = slow.callTool(long, { onprogress: () => void progress++, timeout: 60_000 });
      const plain = slow.callTool(long, { timeout: 60_000 });
      const [a, b] = await Promise.all([streamed, plain]);
      for (const result of [a, b]) expect(JSON.stringify(result.content)).toContain('completed');
      expect(progress).toBeGreaterThan(0);
      await expect(idle.listTools()).rejects.toThrow(/404|not found/i);
      // The session that was busy goes on.
      expect((await slow.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
    }
  }, 120_000);

  it('with connections of their own: at most serve.max_client_hubs are awake, the least recently used sleep, and every client is relayed', async () => {
    const relay = { ...FIXTURES.relay(), roots: 'forward' };
    // The shared connections start on first use, so that every server process counted below is a client's own.
    const { child, url } = await serveHttp(writeConfig({ mcp_servers: { relay }, serve: { max_client_hubs: 2, eager: false } }));
    const clients: { client: Client; transport: StreamableHTTPClientTransport; warnings: string[]; roots: () => Promise<string> }[] = [];
    const connect = async (n: number) => {
      // Roots make a client worth connections of its own: what a server asks reaches it alone.
      const client = new Client({ name: `relaying-${n}`, version: '1' }, { capabilities: { roots: {} } });
      client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: `file:///client-${n}`, name: `client ${n}` }] }));
      const warnings: string[] = [];
      client.setNotificationHandler('notifications/message', async (m) => void warnings.push(String(m.params.data)));
      const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`));
      await client.connect(transport);
      const roots = async () => JSON.stringify((await client.callTool({ name: 'relay__client_roots', arguments: {} })).content);
      const entry = { client, transport, warnings, roots };
      clients.push(entry);
      return entry;
    };
    try {
      // Five clients, each asked for its own roots by the server on its own connection: none is left unrelayed.
      for (let n = 0; n < 5; n++) expect(await (await connect(n)).roots()).toContain(`file:///client-${n}`);
      // Never more than two clients' server processes at once (the others sleep).
      expect(await waitFor(async () => (await childPids(child.pid!)).length <= 2, 10_000)).toBe(true);
      // The first client's connections slept; its next call wakes them, and its roots are its own still.
      expect(await clients[0]!.roots()).toContain('file:///client-0');
      expect(await waitFor(async () => (await childPids(child.pid!)).length <= 2, 10_000)).toBe(true);
      expect(clients.flatMap((c) => c.warnings).filter((w) => w.includes('max_client_hubs'))).toEqual([]);
      // A client that leaves takes its connections with it.
      await clients[1]!.transport.terminateSession();
      await clients[1]!.client.close();
      expect(await clients[4]!.roots()).toContain('file:///client-4');
    } finally {
      await Promise.allSettled(clients.map((c) => c.client.close()));
      await stopChild(child);
    }
  }, 60_000);
});

describe.concurrent('clients that do not read their answers', () => {
  /** A POST of `body` on a raw socket, so the test decides when (and whether) the answer is read. */
  function rawPost(url: string, headers: Record<string, string>, body: string): Socket {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    const head = Object.entries({ host: `${hostname}:${port}`, 'content-length': String(Buffer.byteLength(body)), ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`POST /mcp HTTP/1.1\r\n${head}\r\n${body}`);
    return socket;
  }
  /**
   * Reads the socket until the answer is whole (the last chunk of a chunked body; the SSE answer
   * keeps the connection alive) or the connection closes (the server cut it): the bytes received.
   */
  function readToEnd(socket: Socket, pace?: { everyMs: number; forMs: number }): Promise<{ bytes: number; whole: boolean }> {
    return new Promise((resolve) => {
      let bytes = 0;
      let tail = '';
      socket.on('data', (d: Buffer) => {
        bytes += d.length;
        tail = (tail + d.toString('latin1')).slice(-5);
        if (tail === '0\r\n\r\n') {
          socket.destroy();
          resolve({ bytes, whole: true });
        }
      });
      socket.once('close', () => resolve({ bytes, whole: false }));
      if (!pace) return void socket.resume();
      // A slow reader that keeps reading: a little at a time, never stalling for long.
      const timer = setInterval(() => {
        socket.resume();
        setTimeout(() => socket.pause(), pace.forMs);
      }, pace.everyMs);
      socket.once('close', () => clearInterval(timer));
    });
  }

  it('a stream whose client takes nothing for serve.send_timeout_ms is cut, and serve frees it; a slow reader that keeps reading gets all of it', async () => {
    const dir = tempDir();
    // An answer far larger than what the kernel's socket buffers take (a few MB on loopback).
    writeFileSync(join(dir, 'big.txt'), `${'0123456789abcdef'.repeat(4)}\n`.repeat(200_000));
    const config = writeConfig({ retrieve: { roots: { code: dir }, max_file_bytes: 64 * 1024 * 1024 }, serve: { send_timeout_ms: 1000 } });
    const child = spawnTracked(process.execPath, [BIN, 'serve', '--http', '--port', '0'], {
      env: cleanEnv({ MCPKIT_CONFIG: config }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => void (stderr += d));
    const sockets: Socket[] = [];
    try {
      expect(await waitFor(() => /listening on http/.test(stderr), 20_000)).toBe(true);
      const url = /listening on (http:\/\/\S+)\/mcp/.exec(stderr)![1]!;
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const r = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      });
      await r.text();
      const session = { ...headers, 'mcp-session-id': r.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      const call = (id: number) =>
        JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'open_file', arguments: { path: 'code/big.txt' } } });
      // Only its size is asked of it: counted as it streams in, not gathered into one buffer (the answer is
      // about 30 MB; gathered and copied, it cost this process 0.3-0.4 CPU-s more, measured).
      const whole = { byteLength: 0 };
      for await (const chunk of (await fetch(`${url}/mcp`, { method: 'POST', headers: session, body: call(2) })).body!) whole.byteLength += chunk.byteLength;
      expect(whole.byteLength).toBeGreaterThan(12_000_000);

      // Three clients ask and never read; one reads slowly but keeps reading.
      const stalled = [3, 4, 5].map((id) => rawPost(url, session, call(id)));
      for (const s of stalled) s.pause();
      const slow = rawPost(url, session, call(6));
      slow.pause();
      sockets.push(...stalled, slow);
      const slowBytes = readToEnd(slow, { everyMs: 150, forMs: 5 });
      // Cut well within the wait (the time it takes is mostly serve making three 13 MB answers, which
      // a loaded machine stretches: no tighter wall-clock bound here; the message names the timeout).
      expect(await waitFor(() => (stderr.match(/cut the answer to POST \/mcp/g) ?? []).length >= 3, 60_000)).toBe(true);
      expect(stderr).toMatch(/took nothing of \d+ waiting bytes for 1000 ms \(serve\.send_timeout_ms\)/);
      // Meanwhile serve answers others at once.
      const ping = await fetch(`${url}/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }) });
      expect(ping.status).toBe(200);
      await ping.text();
      // A cut client that reads at last finds its answer short, and the connection closed.
      const got = await Promise.all(stalled.map((s) => readToEnd(s)));
      for (const answer of got) {
        expect(answer.whole).toBe(false);
        expect(answer.bytes).toBeLessThan(whole.byteLength);
      }
      // The slow reader was never cut: it got the whole answer.
      const slowGot = await slowBytes;
      expect(slowGot.whole, stderr).toBe(true);
      expect(slowGot.bytes).toBeGreaterThan(whole.byteLength);
      expect((stderr.match(/cut the answer to POST \/mcp/g) ?? []).length).toBe(3);
    } finally {
      for (const s of sockets) s.destroy();
      await stopChild(child);
    }
  }, 180_000);
});
