import { readFileSync, writeFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCommand } from '../helpers/cli.js';
import { type InProcessServe, serveHttpAsCli } from '../helpers/in-process.js';
import { serveStdioClient } from '../helpers/serve.js';
import { alive, childPids, childPidsNamed, EVERYTHING_BUNDLE, MEMORY_BUNDLE, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * serve follows its config: edits by the CLI, by hand and by serve's own tools are
 * served while clients stay connected, over stdio and HTTP, with real upstream servers.
 */

const text = (r: CallToolResult) => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
const errorOf = (r: CallToolResult) => (r.structuredContent as { error: { code: string; message: string } }).error;

/** A client of `serve` over stdio (../helpers/serve.ts), its events under the name these tests use. */
async function stdioClient(config: string) {
  const served = await serveStdioClient(config, 'live-config', {}, { approve: true });
  return { ...served, events: served.heard };
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

describe('serve over stdio follows its config', () => {
  // The server's own process: the tests find it by name among serve's children (restarted, left alone).
  const config = writeConfig({ mcp_servers: { memory: SERVERS.memoryProcess } });
  let session: Awaited<ReturnType<typeof stdioClient>>;
  const cli = (...args: string[]) => runCommand([...args, '--config', config]);

  beforeAll(async () => {
    session = await stdioClient(config);
  });
  afterAll(async () => {
    await session?.client.close();
  });

  it('serves a server the CLI adds, with one list_changed, soon after the edit', async () => {
    expect(await names(session.client)).toContain('memory__read_graph');
    const before = session.events.toolsChanged;
    const added = await cli('server', 'add', 'everything', '--command', SERVERS.everythingProcess.command, '--arg', EVERYTHING_BUNDLE, '--arg', 'stdio');
    // The edit is on disk once the command has ended (its own start-up is not the reload's; bench/reload.mjs measures the reload).
    const edited = Date.now();
    expect(added.code, added.stderr).toBe(0);
    expect(await waitFor(() => session.events.toolsChanged > before, 5000)).toBe(true);
    // A bound with room (5x) for a loaded machine: the reload's own time is bench/reload.mjs's to measure (well under a second).
    expect(session.events.changedAt.at(-1)! - edited).toBeLessThan(5000);
    // One reload, one list_changed (the new server is not started until a client needs it).
    await new Promise((r) => setTimeout(r, 400));
    expect(session.events.toolsChanged).toBe(before + 1);
    expect(await names(session.client)).toContain('everything__echo');
    const echoed = await session.client.callTool({ name: 'everything__echo', arguments: { message: 'live' } });
    expect(text(echoed as CallToolResult)).toContain('live');
  });

  it('restarts a server whose entry changed, and leaves the others alone', async () => {
    await session.client.callTool({ name: 'memory__read_graph', arguments: {} });
    const [everythingPid] = await childPidsNamed(session.pid, 'server-everything');
    const [memoryPid] = await childPidsNamed(session.pid, 'server-memory');
    expect(everythingPid).toBeDefined();
    const before = session.events.toolsChanged;
    const changed = await cli('server', 'add', 'memory', '--force', '--command', process.execPath, '--arg', MEMORY_BUNDLE, '--env', 'LIVE=1');
    expect(changed.code, changed.stderr).toBe(0);
    // The reload that serves the new entry. The edit drops the old entry's approvals, then writes the
    // config: on a loaded machine a reload can come between the two (the old entry withheld, as it
    // must be), and its list_changed reaches the client too.
    expect(await waitFor(() => /config reloaded \(generation \d+\): .*servers restarted: memory/.test(session.stderr()), 5000)).toBe(true);
    expect(await waitFor(() => session.events.toolsChanged > before, 5000)).toBe(true);
    const read = await session.client.callTool({ name: 'memory__read_graph', arguments: {} });
    expect((read as CallToolResult).isError, text(read as CallToolResult)).toBeFalsy();
    expect(await waitFor(() => !alive(memoryPid!), 8000)).toBe(true);
    const [newMemory] = await childPidsNamed(session.pid, 'server-memory');
    expect(newMemory).not.toBe(memoryPid);
    expect(await childPidsNamed(session.pid, 'server-everything')).toEqual([everythingPid]);
  });

  it('ends a call in flight on a removed server: with its result within the grace period, with a clear error after it', async () => {
    const [everythingPid] = await childPidsNamed(session.pid, 'server-everything');
    const quick = session.client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 1, steps: 2 } });
    const slow = session.client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 30, steps: 3 } }, { timeout: 60_000 });
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const removed = await cli('server', 'remove', 'everything');
    expect(removed.code, removed.stderr).toBe(0);
    const quickResult = (await quick) as CallToolResult;
    expect(quickResult.isError).toBeFalsy();
    expect(text(quickResult)).toMatch(/completed/i);
    const slowResult = (await slow) as CallToolResult;
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(slowResult.isError).toBe(true);
    expect(errorOf(slowResult).code).toBe('UNAVAILABLE');
    expect(errorOf(slowResult).message).toMatch(/removed from the config/);
    expect(await waitFor(() => !alive(everythingPid!), 5000)).toBe(true);
    expect(await names(session.client)).not.toContain('everything__echo');
  });

  it('keeps the last good config through a broken hand edit, warns the client, and applies the fix', async () => {
    const good = readFileSync(config, 'utf8');
    const before = session.events.messages.length;
    writeFileSync(config, `${good}\nmcp_servers: [this is: not, valid`);
    expect(await waitFor(() => session.events.messages.length > before, 5000)).toBe(true);
    const warning = session.events.messages.at(-1)!;
    expect(warning.level).toBe('warning');
    expect(String(warning.data)).toMatch(/last good config/);
    expect(await names(session.client)).toContain('memory__read_graph');
    expect(session.stderr()).toMatch(/was not applied/);
    const changes = session.events.toolsChanged;
    const fixed = parse(good) as { mcp_servers: Record<string, unknown> };
    fixed.mcp_servers.memory2 = SERVERS.memory;
    writeFileSync(config, stringify(fixed));
    expect(await waitFor(() => session.events.toolsChanged > changes, 5000)).toBe(true);
    expect(await names(session.client)).toContain('memory2__read_graph');
    expect(session.stderr()).toMatch(/config reloaded \(generation \d+\): servers added: memory2/);
  });

  it('disables a server, and SIGHUP reloads without ending serve', async () => {
    const before = session.events.toolsChanged;
    const disabled = await cli('server', 'disable', 'memory2');
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(await waitFor(() => session.events.toolsChanged > before, 5000)).toBe(true);
    expect(await names(session.client)).not.toContain('memory2__read_graph');
    process.kill(session.pid, 'SIGHUP');
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(session.pid)).toBe(true);
    expect(await names(session.client)).toContain('memory__read_graph');
  });

  it("server_add over MCP asks the person and is followed at once; its tools wait for a person's approval, then are served", async () => {
    const added = (await session.client.callTool({
      name: 'server_add',
      // Its own process: a server an agent adds runs boxed, where the pool's socket is out of its reach.
      arguments: { name: 'memory3', command: SERVERS.memoryProcess.command, args: SERVERS.memoryProcess.args },
    })) as CallToolResult;
    expect(added.isError, text(added)).toBeFalsy();
    expect(session.events.asked[0]).toContain(`${SERVERS.memoryProcess.command} ${SERVERS.memoryProcess.args[0]}`);
    const tested = (await session.client.callTool({ name: 'server_test', arguments: { name: 'memory3' } })) as CallToolResult;
    expect(tested.isError, text(tested)).toBeFalsy();
    expect(text(tested)).toContain('read_graph');
    // An agent's server is never trusted on first use (tool pinning): withheld, and said why.
    expect(await names(session.client)).not.toContain('memory3__read_graph');
    const held = (await session.client.callTool({ name: 'memory3__read_graph', arguments: {} })) as CallToolResult;
    expect(errorOf(held).code).toBe('TOOL_NOT_APPROVED');
    const review = JSON.parse((await cli('server', 'diff', 'memory3', '--json')).stdout) as { digest: string };
    const approved = await cli('server', 'approve', 'memory3', '--digest', review.digest);
    expect(approved.code, approved.stderr).toBe(0);
    expect(await waitFor(async () => (await names(session.client)).includes('memory3__read_graph'), 5000)).toBe(true);
  });

  it('leaves no process behind when the client goes', async () => {
    const children = await childPids(session.pid);
    expect(children.length).toBeGreaterThan(0);
    await session.client.close();
    expect(await waitFor(() => children.every((pid) => !alive(pid)) && !alive(session.pid), 8000)).toBe(true);
  });
});

async function initialize(url: string, token?: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'live', version: '1' } },
    }),
  });
  await response.text();
  return { status: response.status, session: response.headers.get('mcp-session-id') };
}

async function listTools(url: string, session: string, token?: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  return { status: response.status, body: await response.text() };
}

/** The memory and everything servers this process started (serve in this process starts its upstreams as its children). */
async function upstreamsHere(): Promise<number[]> {
  return [...(await childPidsNamed(process.pid, 'server-memory')), ...(await childPidsNamed(process.pid, 'server-everything'))];
}

/**
 * serve --http in this process (test/helpers/in-process.ts): the same runtime, reloads and routes
 * as the process, its default exposure and a clean environment as the process is given; what
 * SIGTERM does to the process (it closes serve as `close` does here) is http.test.ts's.
 */
describe('serve --http follows its config', () => {
  // The server's own process: the last test finds it by name among this process's children.
  const config = writeConfig({ serve: { token: 'first-token' }, mcp_servers: { memory: SERVERS.memoryProcess }, tool_views: { mem: { servers: ['memory'] } } });
  let served: InProcessServe;
  // What this process had started before serve: none of it is serve's.
  let before = new Set<number>();
  const cli = (...args: string[]) => runCommand([...args, '--config', config]);

  beforeAll(async () => {
    before = new Set(await upstreamsHere());
    served = await serveHttpAsCli(config);
  });
  afterAll(async () => {
    await served?.close();
  });

  it('serves a view created while running, and ends its sessions with 404 once it is removed', async () => {
    const route = `${served.url}/view/late/mcp`;
    expect((await initialize(route, 'first-token')).status).toBe(404);
    expect((await cli('view', 'create', 'late')).code).toBe(0);
    expect((await cli('view', 'add-server', 'late', 'memory')).code).toBe(0);
    expect(await waitFor(async () => (await initialize(route, 'first-token')).status === 200, 5000)).toBe(true);
    const { session } = await initialize(route, 'first-token');
    // The session may start between the two edits' reloads: the second one reaches it too (and the
    // memory server has to start, which takes seconds when the machine is busy).
    expect(await waitFor(async () => (await listTools(route, session!, 'first-token')).body.includes('read_graph'), 15_000)).toBe(true);
    expect((await cli('view', 'delete', 'late')).code).toBe(0);
    expect(await waitFor(async () => (await listTools(route, session!, 'first-token')).status === 404, 5000)).toBe(true);
  });

  it('stops taking a revoked token at the next request, and shows the generation in /health', async () => {
    const { session } = await initialize(`${served.url}/mcp`, 'first-token');
    expect((await listTools(`${served.url}/mcp`, session!, 'first-token')).status).toBe(200);
    const health = async (token: string) =>
      (await (await fetch(`${served.url}/health`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, unknown>;
    const generation = (await health('first-token')).config as { generation: number };
    const edited = parse(readFileSync(config, 'utf8')) as { serve: { token: string } };
    edited.serve.token = 'second-token';
    writeFileSync(config, stringify(edited));
    expect(await waitFor(async () => (await listTools(`${served.url}/mcp`, session!, 'first-token')).status === 401, 5000)).toBe(true);
    // The session the revoked token opened ended with it: the new token does not take it over.
    expect((await listTools(`${served.url}/mcp`, session!, 'second-token')).status).toBe(404);
    const { session: fresh } = await initialize(`${served.url}/mcp`, 'second-token');
    expect((await listTools(`${served.url}/mcp`, fresh!, 'second-token')).status).toBe(200);
    const now = (await health('second-token')).config as { generation: number; last_reload: { outcome: string; message: string } };
    expect(now.generation).toBeGreaterThan(generation.generation);
    expect(now.last_reload.outcome).toBe('applied');
    expect(now.last_reload.message).toContain('serve.token');
  });

  it('tells 2025 and 2026 SDK clients of a server the CLI adds, and serves its tools to both', async () => {
    const legacy = new Client({ name: 'live-legacy', version: '1' });
    const modern = new Client({ name: 'live-modern', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    // A client of a view the edit does not touch hears nothing.
    const bystander = new Client({ name: 'live-bystander', version: '1' });
    const heard = { legacy: 0, modern: 0, bystander: 0 };
    legacy.setNotificationHandler('notifications/tools/list_changed', async () => void heard.legacy++);
    modern.setNotificationHandler('notifications/tools/list_changed', async () => void heard.modern++);
    bystander.setNotificationHandler('notifications/tools/list_changed', async () => void heard.bystander++);
    const auth = { requestInit: { headers: { authorization: 'Bearer second-token' } } };
    await legacy.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), auth));
    await modern.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), auth));
    await bystander.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/view/mem/mcp`), auth));
    await bystander.listTools();
    try {
      expect(modern.getProtocolEra()).toBe('modern');
      const listening = await modern.listen({ toolsListChanged: true });
      expect((await legacy.listTools()).tools.map((t) => t.name)).not.toContain('everything__echo');
      const added = await cli('server', 'add', 'everything', '--command', SERVERS.everythingProcess.command, '--arg', EVERYTHING_BUNDLE, '--arg', 'stdio');
      expect(added.code, added.stderr).toBe(0);
      expect(await waitFor(() => heard.legacy > 0 && heard.modern > 0, 5000)).toBe(true);
      for (const client of [legacy, modern]) {
        const echoed = (await client.callTool({ name: 'everything__echo', arguments: { message: 'both eras' } })) as CallToolResult;
        expect(text(echoed)).toContain('both eras');
      }
      expect(heard.bystander).toBe(0);
      await listening.close();
    } finally {
      await Promise.allSettled([legacy.close(), modern.close(), bystander.close()]);
    }
  });

  it('leaves no process behind when it stops, those its reloads started included', async () => {
    const children = (await upstreamsHere()).filter((pid) => !before.has(pid));
    // memory (the view's), everything (the CLI's add).
    expect(children.length).toBeGreaterThanOrEqual(2);
    await served.close();
    expect(await waitFor(() => children.every((pid) => !alive(pid)), 5000)).toBe(true);
  });
});
