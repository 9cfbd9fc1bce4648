import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, spawnTracked } from '../helpers/cli.js';
import { alive, childPids, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

const TOKEN = 'test-token-123';
const VIEW_TOKEN = 'view-only-456';

async function startHttp(args: string[], config: string): Promise<{ child: ChildProcess; base: string; stderr: () => string }> {
  const child = spawnTracked(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--config', config, ...args], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout!.on('data', (d) => (stdout += d));
  const ok = await waitFor(() => /listening on (http:\/\/\S+)\/mcp/.test(stderr) || child.exitCode !== null, 20_000);
  const base = /listening on (http:\/\/\S+)\/mcp/.exec(stderr)?.[1];
  if (!ok || !base) throw new Error(`serve --http did not start: ${stderr}${stdout}`);
  expect(stdout).toBe('');
  return { child, base, stderr: () => stderr };
}

async function mcpClient(url: string, token?: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : undefined);
  const client = new Client({ name: 'http-e2e', version: '1' });
  await client.connect(transport);
  return client;
}

describe('serve --http', () => {
  const config = writeConfig({
    mcp_servers: { everything: SERVERS.everythingProcess },
    tool_views: {
      lean: { description: 'Echo only', servers: { everything: { tools: { echo: {} } } }, tokens: [VIEW_TOKEN] },
      finder: { exposure: 'search', servers: ['everything'] },
    },
    // Every view without its own exposure lists every tool (the listings are what these tests check).
    serve: { exposure: 'direct' },
  });
  let server: Awaited<ReturnType<typeof startHttp>>;
  const auth = { Authorization: `Bearer ${TOKEN}` };

  beforeAll(async () => {
    server = await startHttp(['--token', TOKEN], config);
  });
  afterAll(async () => {
    server?.child.kill('SIGTERM');
  });

  it('binds loopback by default', () => {
    expect(server.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers /health: the status for anyone, upstream details with the token', async () => {
    expect(await (await fetch(`${server.base}/health`)).json()).toEqual({ status: 'ok' });
    const detailed = (await (await fetch(`${server.base}/health`, { headers: auth })).json()) as { upstreams: unknown[] };
    expect(detailed).toMatchObject({ status: 'ok', upstreams: expect.any(Array) });
  });

  it('refuses requests without the right token with 401', async () => {
    expect((await fetch(`${server.base}/views`)).status).toBe(401);
    expect((await fetch(`${server.base}/views`, { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
    await expect(mcpClient(`${server.base}/mcp`)).rejects.toThrow();
  });

  it("lists views and a view's tools", async () => {
    expect(await (await fetch(`${server.base}/views`, { headers: auth })).json()).toEqual({
      routes: { default: '/mcp' },
      views: [
        { name: 'lean', description: 'Echo only', exposure: 'direct', path: '/view/lean/mcp' },
        { name: 'finder', exposure: 'search', path: '/view/finder/mcp' },
      ],
    });
    const lean = (await (await fetch(`${server.base}/views/lean`, { headers: auth })).json()) as { tools: { name: string }[] };
    expect(lean.tools.map((t) => t.name)).toEqual(['echo']);
    expect((await fetch(`${server.base}/views/nope`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${server.base}/nowhere`, { headers: auth })).status).toBe(404);
  });

  it('serves the default view at /mcp to the SDK client', async () => {
    const client = await mcpClient(`${server.base}/mcp`, TOKEN);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['config_show', 'everything__echo']));
      const r = await client.callTool({ name: 'everything__echo', arguments: { message: 'over http' } });
      expect(JSON.stringify(r.content)).toContain('Echo: over http');
    } finally {
      await client.close();
    }
  });

  it("serves a view at /view/{name}/mcp, opened by the view's own token too", async () => {
    const client = await mcpClient(`${server.base}/view/lean/mcp`, VIEW_TOKEN);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    } finally {
      await client.close();
    }
    await expect(mcpClient(`${server.base}/mcp`, VIEW_TOKEN)).rejects.toThrow();
    const search = await mcpClient(`${server.base}/view/finder/mcp`, TOKEN);
    try {
      expect((await search.listTools()).tools.map((t) => t.name)).toEqual(['finder_search_tools', 'finder_describe_tool', 'finder_call_tool']);
    } finally {
      await search.close();
    }
  });

  it('keeps sessions apart: a session id is valid only on the route that created it', async () => {
    const init = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    await init.text();
    const elsewhere = await fetch(`${server.base}/view/lean/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    expect(elsewhere.status).toBe(404);
    const noSession = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }),
    });
    expect(noSession.status).toBe(400);
  });

  it('answers a forwarded call as application/json, and streams when progress is asked for', async () => {
    const headers = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const post = (body: object, session?: string) =>
      fetch(`${server.base}/mcp`, { method: 'POST', headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(body) });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, session)).text();
    const call = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'fast' } } }, session);
    expect(call.headers.get('content-type')).toContain('application/json');
    expect(await call.json()).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'Echo: fast' }] } });
    const bad = await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'everything__echo', arguments: {} } }, session);
    expect(((await bad.json()) as { result: { isError: boolean } }).result.isError).toBe(true);

    const client = await mcpClient(`${server.base}/mcp`, TOKEN);
    try {
      await client.listTools();
      const progress: number[] = [];
      await client.callTool(
        { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
        {
          onprogress: (p) => void progress.push(p.progress),
        },
      );
      // The upstream may send its last progress after its result (see proxy.test.ts): a prefix is certain.
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress).toEqual([1, 2, 3].slice(0, progress.length));
    } finally {
      await client.close();
    }
  });

  it("keeps two clients' progress apart on the shared connection, though their SDKs chose the same tokens", async () => {
    const clients = [await mcpClient(`${server.base}/mcp`, TOKEN), await mcpClient(`${server.base}/mcp`, TOKEN)];
    try {
      await Promise.all(clients.map((c) => c.listTools()));
      const seen: number[][] = [[], []];
      await Promise.all(
        clients.map((c, i) =>
          c.callTool(
            { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
            {
              onprogress: (p) => void seen[i]!.push(p.progress),
            },
          ),
        ),
      );
      // Each client hears its own call's progress (a prefix of 1, 2, 3: the last may follow the result), and only that.
      for (const progress of seen) {
        expect(progress.length).toBeGreaterThanOrEqual(2);
        expect(progress).toEqual([1, 2, 3].slice(0, progress.length));
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it('stops on SIGTERM and leaves no upstream process behind', async () => {
    const children = await childPids(server.child.pid!);
    expect(children.length).toBeGreaterThan(0);
    const exited = new Promise((r) => server.child.once('exit', r));
    server.child.kill('SIGTERM');
    await exited;
    expect(await waitFor(() => children.every((pid) => !alive(pid)), 10_000)).toBe(true);
  });
});

describe('serve --http without a token', () => {
  it('lets loopback clients in', async () => {
    const server = await startHttp([], writeConfig({}));
    try {
      const client = await mcpClient(`${server.base}/mcp`);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      server.child.kill('SIGTERM');
    }
  });
});
