import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_TIMEOUT_MS } from '../../src/config/schema/defaults.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';
import { SERVERS, waitFor } from '../helpers/upstreams.js';
import { join } from 'node:path';

/**
 * What the config closes stays closed: a reload that cannot read who may do what keeps the last
 * good rules, a half-written file is not applied, one protected route closes the others, a GET
 * without a credential starts nothing, and a revoked credential ends what it opened.
 */
const TOKEN = 'serve-token-5f3a9c';
const VIEW_TOKEN = 'view-token-8b21e4';

function configFile(text: string): string {
  const path = join(tempDir(), 'mcpkit.yaml');
  writeFileSync(path, text);
  return path;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const status = async (url: string, headers: Record<string, string> = {}) => (await fetch(url, { headers })).status;

const GUARDED = `serve:\n  token: ${TOKEN}\nmcp_servers:\n  mem: ${JSON.stringify(SERVERS.memory)}\n`;

describe('a reload that cannot use the serve section keeps the last good one', () => {
  it.each([
    ['a token that is not a string', 'serve:\n  token: 123\n'],
    ['an empty token', 'serve:\n  token: ""\n'],
    ['a token from an unset variable', 'serve:\n  token: ${MCPKIT_TEST_UNSET_TOKEN}\n'],
    ['a broken serve.auth', `serve:\n  token: ${TOKEN}\n  auth:\n    issuer: not-a-url\n`],
  ])('%s: every route still needs the old token, and /health says why', async (_what, broken) => {
    const path = configFile(GUARDED);
    const served = await serveHttpInProcess(path);
    expect(await status(`${served.url}/views`)).toBe(401);
    const reloaded = served.nextReload();
    writeFileSync(path, `${broken}mcp_servers:\n  mem: ${JSON.stringify(SERVERS.memory)}\n`);
    await served.runtime.configs.reload('test');
    await reloaded;
    for (const route of ['/views', '/mcp', '/metrics']) expect(await status(`${served.url}${route}`), route).toBe(401);
    expect(await status(`${served.url}/views`, bearer(TOKEN))).toBe(200);
    const health = (await (await fetch(`${served.url}/health`, { headers: bearer(TOKEN) })).json()) as {
      config: { kept_from_last_good?: Record<string, string[]> };
    };
    expect(Object.keys(health.config.kept_from_last_good ?? {})).toEqual(['serve']);
    expect(served.lines.join('\n')).toMatch(/serve section .* cannot be used; the last good one stays in force/);
    // Fixed, it applies.
    writeFileSync(path, GUARDED.replace(TOKEN, 'the-new-token-771'));
    await served.runtime.configs.reload('test');
    expect(await status(`${served.url}/views`, bearer('the-new-token-771'))).toBe(200);
    expect(await status(`${served.url}/views`, bearer(TOKEN))).toBe(401);
    expect(((await (await fetch(`${served.url}/health`, { headers: bearer('the-new-token-771') })).json()) as { config: object }).config).not.toHaveProperty(
      'kept_from_last_good',
    );
    await served.close();
  });

  it("keeps a view's last good tokens when its entry breaks", async () => {
    const view = (tokens: string) => `tool_views:\n  a:\n    groups: [config]\n    tokens: ${tokens}\n`;
    const path = configFile(view(`[${VIEW_TOKEN}]`));
    const served = await serveHttpInProcess(path);
    expect(await status(`${served.url}/views/a`)).toBe(401);
    writeFileSync(path, view('["${MCPKIT_TEST_UNSET_TOKEN}"]'));
    await served.runtime.configs.reload('test');
    expect(await status(`${served.url}/views/a`)).toBe(401);
    expect(await status(`${served.url}/mcp`)).toBe(401);
    expect(await status(`${served.url}/views/a`, bearer(VIEW_TOKEN))).toBe(200);
    await served.close();
  });
});

describe('an empty or half-written file is not applied', () => {
  it('an emptied file keeps the config, as a deleted one does', async () => {
    const path = configFile(GUARDED);
    const served = await serveHttpInProcess(path);
    writeFileSync(path, '');
    const report = await served.runtime.configs.reload('test');
    expect(report.outcome).toBe('kept');
    expect(report.message).toContain('is empty');
    expect(await status(`${served.url}/views`)).toBe(401);
    expect(Object.keys((await served.runtime.config()).mcp_servers)).toEqual(['mem']);
    await served.close();
  });

  it('a file written in pieces is applied once it is whole, never in between', async () => {
    const path = configFile(GUARDED);
    const served = await serveHttpInProcess(path);
    const whole = `${GUARDED}  fs: ${JSON.stringify(SERVERS.memory)}\n`;
    // A writer that truncates first, then writes a piece every 20 ms (as a slow copy does), while the watcher reloads.
    writeFileSync(path, '');
    const reloading = served.runtime.configs.reload('an event mid-write');
    for (let end = 16; end < whole.length; end += 16) {
      writeFileSync(path, whole.slice(0, end));
      await new Promise((r) => setTimeout(r, 20));
    }
    writeFileSync(path, whole);
    await reloading;
    await served.runtime.configs.reload('the last event');
    const applied = served.reloads.filter((r) => r.outcome === 'applied');
    expect(applied).toHaveLength(1);
    expect(applied[0]!.plan!.servers.removed).toEqual([]);
    expect(applied[0]!.plan!.servers.added).toEqual(['fs']);
    expect(await status(`${served.url}/views`)).toBe(401);
    expect(readFileSync(path, 'utf8')).toBe(whole);
    await served.close();
  });
});

describe('one protected route closes the others', () => {
  const VIEWS = `mcp_servers:\n  mem: ${JSON.stringify(SERVERS.memory)}\ntool_views:\n  a:\n    servers: [mem]\n    tokens: [${VIEW_TOKEN}]\n  b:\n    groups: [config]\n`;

  it('with view tokens and no serve.token, /mcp, /views, /metrics, other views and the detail of /health need a credential', async () => {
    const served = await serveHttpInProcess(configFile(VIEWS));
    for (const route of ['/mcp', '/views', '/metrics', '/views/b', '/view/b/mcp', '/views/a']) expect(await status(`${served.url}${route}`), route).toBe(401);
    expect(await (await fetch(`${served.url}/health`)).json()).toEqual({ status: 'ok' });
    // The view's token opens its own view, and lists only it.
    expect(await status(`${served.url}/views/a`, bearer(VIEW_TOKEN))).toBe(200);
    expect(await (await fetch(`${served.url}/views`, { headers: bearer(VIEW_TOKEN) })).json()).toMatchObject({ views: [{ name: 'a' }] });
    // A valid credential without access to a route: 403, not a 401 that would send a client to log in again.
    for (const route of ['/mcp', '/metrics', '/views/b']) expect(await status(`${served.url}${route}`, bearer(VIEW_TOKEN)), route).toBe(403);
    await served.close();
  });

  it('serve.open_routes opens a route on purpose', async () => {
    const served = await serveHttpInProcess(configFile(`${VIEWS}serve:\n  open_routes: [/views, /view/b/mcp]\n`));
    expect(await status(`${served.url}/views`)).toBe(200);
    expect(await status(`${served.url}/views/b`)).toBe(200);
    expect(await status(`${served.url}/mcp`)).toBe(401);
    expect(await status(`${served.url}/views/a`)).toBe(401);
    await served.close();
  });

  it('nothing protected: every route stays open, as before', async () => {
    const served = await serveHttpInProcess(configFile(`tool_views:\n  b:\n    groups: [config]\n`));
    for (const route of ['/views', '/views/b', '/metrics']) expect(await status(`${served.url}${route}`), route).toBe(200);
    await served.close();
  });
});

// A gateway whose servers start on first use (serve.eager: false; by default they start with serve).
describe('a GET without a credential starts nothing', () => {
  it('/views/NAME answers from what is known, and starts the servers only for a credential', async () => {
    const path = configFile(
      `mcp_servers:\n  mem: ${JSON.stringify(SERVERS.memory)}\ntool_views:\n  r:\n    servers: [mem]\nserve:\n  eager: false\n  open_routes: [/views/r]\n`,
    );
    const served = await serveHttpInProcess(path);
    const states = () => served.runtime.serving.upstreamStatus().map((u) => u.state);
    // As an <img> on another site sends it: no Origin, Sec-Fetch-Site cross-site.
    const seen = (await (await fetch(`${served.url}/views/r`, { headers: { 'sec-fetch-site': 'cross-site' } })).json()) as Record<string, unknown>;
    expect(seen).toMatchObject({ name: 'r', tools: [], complete: false, not_started: ['mem'] });
    expect(states().every((s) => s === 'idle')).toBe(true);
    // Opened on purpose, a request that is not another site's lists the tools.
    const listed = (await (await fetch(`${served.url}/views/r`)).json()) as { tools: { name: string }[]; complete: boolean };
    expect(listed.complete).toBe(true);
    expect(listed.tools.map((t) => t.name)).toContain('read_graph');
    await served.close();
  });

  it('an open server that did not open the route on purpose starts nothing for a GET without a credential', async () => {
    const served = await serveHttpInProcess(
      configFile(`mcp_servers:\n  mem: ${JSON.stringify(SERVERS.memory)}\ntool_views:\n  r:\n    servers: [mem]\nserve:\n  eager: false\n`),
    );
    const seen = (await (await fetch(`${served.url}/views/r`)).json()) as Record<string, unknown>;
    expect(seen).toMatchObject({ complete: false, not_started: ['mem'] });
    expect(served.runtime.serving.upstreamStatus().every((u) => u.state === 'idle')).toBe(true);
    await served.close();
  });
});

describe('a credential revoked by a reload ends what it opened', () => {
  it("a view's GET stream opened with a token that is then removed stops", async () => {
    const view = (token: string) => `mcp_servers:\n  mem: ${JSON.stringify(SERVERS.memory)}\ntool_views:\n  a:\n    servers: [mem]\n    tokens: [${token}]\n`;
    const path = configFile(view(VIEW_TOKEN));
    const served = await serveHttpInProcess(path);
    const route = `${served.url}/view/a/mcp`;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...bearer(VIEW_TOKEN) };
    const init = await fetch(route, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const stream = await fetch(route, {
      headers: { ...headers, accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(stream.status).toBe(200);
    let ended = false;
    const reading = (async () => {
      const reader = stream.body!.getReader();
      for (;;) {
        const { done } = await reader.read().catch(() => ({ done: true }));
        if (done) break;
      }
      ended = true;
    })();
    writeFileSync(path, view('another-token-99f0'));
    await served.runtime.configs.reload('test');
    expect(await waitFor(() => ended, 5000)).toBe(true);
    await reading;
    expect(await status(route, { ...headers, 'mcp-session-id': session })).toBe(401);
    await served.close();
  });
});

describe('session quotas per route and credential', () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  });

  it("past serve.max_sessions a new session is refused with 429, and no other view's (or caller's) session ends", async () => {
    const served = await serveHttpInProcess(
      configFile(
        `tool_views:\n  a:\n    groups: [config]\n    tokens: [${VIEW_TOKEN}, second-token-c0ffee]\n  b:\n    groups: [config]\nserve:\n  max_sessions: 2\n  open_routes: [/view/b/mcp]\n`,
      ),
    );
    const open = async (route: string, token?: string) => {
      const r = await fetch(`${served.url}${route}`, { method: 'POST', headers: { ...headers, ...(token ? bearer(token) : {}) }, body: init });
      return { status: r.status, session: r.headers.get('mcp-session-id'), text: await r.text() };
    };
    const ping = async (route: string, session: string, token?: string) => {
      const r = await fetch(`${served.url}${route}`, {
        method: 'POST',
        headers: { ...headers, ...(token ? bearer(token) : {}), 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
      await r.text();
      return r.status;
    };
    const b = [await open('/view/b/mcp'), await open('/view/b/mcp')];
    const a = [await open('/view/a/mcp', VIEW_TOKEN), await open('/view/a/mcp', VIEW_TOKEN)];
    const over = await open('/view/a/mcp', VIEW_TOKEN);
    expect(over.status).toBe(429);
    expect(over.text).toContain('serve.max_sessions');
    // Another credential of the same view has a quota of its own.
    expect((await open('/view/a/mcp', 'second-token-c0ffee')).status).toBe(200);
    for (const s of b) expect(await ping('/view/b/mcp', s.session!)).toBe(200);
    for (const s of a) expect(await ping('/view/a/mcp', s.session!, VIEW_TOKEN)).toBe(200);
    // A session is its opener's: another credential does not find it.
    expect(await ping('/view/a/mcp', a[0]!.session!, 'second-token-c0ffee')).toBe(404);
    // A session ended (DELETE) frees its place.
    const ended = await fetch(`${served.url}/view/a/mcp`, {
      method: 'DELETE',
      headers: { ...headers, ...bearer(VIEW_TOKEN), 'mcp-session-id': a[0]!.session!, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(ended.status).toBe(200);
    expect((await open('/view/a/mcp', VIEW_TOKEN)).status).toBe(200);
    await served.close();
  });
});

describe('a listen stream naming many resources is bounded', () => {
  it('more than the maximum is refused at once; the maximum costs one listing and /health stays quick', async () => {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const { MAX_LISTEN_URIS } = await import('../../src/mcp/http/modern-http.js');
    const served = await serveHttpInProcess(
      configFile(`mcp_servers:\n  everything: ${JSON.stringify(SERVERS.everything)}\ntool_views:\n  e:\n    servers: [everything]\n`),
    );
    const client = new Client({ name: 'listener', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' as const } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/view/e/mcp`)));
    try {
      const uris = (n: number) => Array.from({ length: n }, (_, i) => `demo://resource/dynamic/text/${i + 1}`);
      const started = Date.now();
      await expect(client.listen({ resourceSubscriptions: uris(5000) })).rejects.toThrow(new RegExp(`at most ${MAX_LISTEN_URIS}`));
      expect(Date.now() - started).toBeLessThan(2000);
      const listening = client.listen({ resourceSubscriptions: uris(MAX_LISTEN_URIS) });
      const healthStarted = Date.now();
      expect((await fetch(`${served.url}/health`)).status).toBe(200);
      expect(Date.now() - healthStarted).toBeLessThan(1000);
      const subscription = await listening;
      expect(subscription.honoredFilter.resourceSubscriptions).toHaveLength(MAX_LISTEN_URIS);
      await subscription.close();
    } finally {
      await client.close();
      await served.close();
    }
  });
});

describe('hidden resources are not readable', () => {
  it('a server filtered to show no resources lists none and reads none, template instances included', async () => {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const everything = { ...SERVERS.everything, filter: [{ exclude: '*' }] };
    const served = await serveHttpInProcess(configFile(`mcp_servers:\n  everything: ${JSON.stringify(everything)}\n`));
    const client = new Client({ name: 'reader', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
    try {
      expect((await client.listResources()).resources).toEqual([]);
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
      for (const uri of ['demo://resource/dynamic/text/1', 'demo://resource/static/document/architecture.md'])
        await expect(client.readResource({ uri }), uri).rejects.toThrow(/not found/i);
      await expect(client.subscribeResource({ uri: 'demo://resource/dynamic/text/1' })).rejects.toThrow(/not found/i);
    } finally {
      await client.close();
      await served.close();
    }
  });
});

describe('a malformed upstream answer ends its call at once', () => {
  it.each([
    ['the hot path (the catalog known)', true],
    ['the SDK path', false],
  ])('%s: UPSTREAM_ERROR naming the server, long before the call could time out, and the connection goes on', async (_what, listFirst) => {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const malformed = { command: process.execPath, args: [join(ROOT, 'test/fixtures/malformed-server.mjs')] };
    const served = await serveHttpInProcess(configFile(`mcp_servers:\n  broken: ${JSON.stringify(malformed)}\n`));
    const client = new Client({ name: 'caller', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
    try {
      if (listFirst) await client.listTools();
      for (const name of ['broken__not_an_object', 'broken__content_not_array']) {
        const started = Date.now();
        const result = (await client.callTool({ name, arguments: {} })) as { isError?: boolean; content: { text: string }[] };
        // Not held until the call's timeout (SERVER_TIMEOUT_MS, 60 s): a quarter of it, room for a loaded machine.
        expect(Date.now() - started, name).toBeLessThan(SERVER_TIMEOUT_MS / 4);
        expect(result.isError, name).toBe(true);
        const error = JSON.parse(result.content[0]!.text) as { error: { code: string; message: string } };
        expect(error.error.code, name).toBe('UPSTREAM_ERROR');
        expect(error.error.message, name).toContain('"broken"');
      }
      expect(JSON.stringify((await client.callTool({ name: 'broken__fine', arguments: {} })).content)).toContain('fine');
    } finally {
      await client.close();
      await served.close();
    }
  });
});

describe('an audit log that cannot be written shows', () => {
  it('/health is degraded and says why, and /metrics counts it, while calls go on', async () => {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    // /dev/full: every write fails with ENOSPC, as on a full disk (recovery: test/audit/audit-log.test.ts).
    const served = await serveHttpInProcess(configFile(`serve:\n  token: ${TOKEN}\n  audit_log: /dev/full\n`));
    const client = new Client({ name: 'audited', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: bearer(TOKEN) } }));
    try {
      expect((await client.callTool({ name: 'config_path', arguments: {} })).isError).toBeFalsy();
      const health = async () =>
        (await (await fetch(`${served.url}/health`, { headers: bearer(TOKEN) })).json()) as { status: string; audit?: { ok: boolean; reason?: string } };
      expect(await waitFor(async () => (await health()).status === 'degraded', 5000)).toBe(true);
      expect((await health()).audit).toMatchObject({ ok: false, reason: expect.stringMatching(/ENOSPC/) });
      expect(await (await fetch(`${served.url}/health`)).json()).toEqual({ status: 'degraded' });
      expect(await (await fetch(`${served.url}/metrics`, { headers: bearer(TOKEN) })).text()).toMatch(/^mcpkit_audit_log_up 0$/m);
      expect(served.lines.join('\n')).toMatch(/cannot write the audit log \/dev\/full: .*tried again/);
    } finally {
      await client.close();
      await served.close();
    }
  });
});
