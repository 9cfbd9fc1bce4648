import type { ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { BIN, cleanEnv, spawnTracked, stopChild, runCommand, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, serveStdioInProcess } from '../helpers/in-process.js';
import { FIXTURE_SERVERS, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

// Both protocol eras through mcpkit, with the SDK's 2.x client: a 2026-07-28 client and a
// 2025-11-25 client, over stdio and streamable HTTP, to upstreams of either era.

const MODERN_SERVER = FIXTURE_SERVERS.modern;
const modernStdio = (...flags: string[]) => ({ command: process.execPath, args: [MODERN_SERVER, '--stdio', ...flags] });

type Era = 'modern' | 'legacy';

/** A 2.x SDK client: `modern` pins 2026-07-28, `legacy` is the SDK's default 2025 handshake. Answers elicitation with a name. */
function sdkClient(era: Era, asked: string[] = []): Client {
  const client = new Client(
    { name: `eras-${era}`, version: '1' },
    { capabilities: { elicitation: { form: {} } }, ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {}) },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { name: 'Ada' } };
  });
  return client;
}

const text = (result: unknown) => ((result as { content: { text: string }[] }).content[0]?.text ?? '') as string;

/**
 * serve --http with this config: in this process (the same code `mcpkit serve --http` runs, its
 * own environment), since what these tests ask is serve's answers to each era, not the process's.
 * The balancer's second replica is a process of its own (startHttpProcess): replicas that shared a
 * process could share what two processes cannot.
 */
async function startHttp(config: string, extra: { token?: string } = {}): Promise<{ base: string }> {
  const served = await serveHttpInProcess(config, { exposure: undefined, env: cleanEnv(), ...extra });
  return { base: served.url };
}

async function startHttpProcess(config: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawnTracked(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--config', config], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const ok = await waitFor(() => /listening on (http:\/\/\S+)\/mcp/.test(stderr) || child.exitCode !== null, 20_000);
  const base = /listening on (http:\/\/\S+)\/mcp/.exec(stderr)?.[1];
  if (!ok || !base) throw new Error(`serve --http did not start: ${stderr}`);
  return { child, base };
}

/** The modern fixture over HTTP, for upstreams and chains. */
async function startModernHttp(...flags: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawnTracked(process.execPath, [MODERN_SERVER, '--port', '0', ...flags], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  await waitFor(() => out.includes('\n') || child.exitCode !== null, 10_000);
  const url = out.trim();
  if (!url.startsWith('http')) throw new Error('modern fixture did not start');
  return { child, url };
}

const children: ChildProcess[] = [];
const clients: Client[] = [];
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(children.map((c) => stopChild(c)));
});

/** Made at first use, then the same for the rest of the file: a process that tests can share. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/**
 * One modern fixture over HTTP for every test that needs one and keeps no state of its own in
 * it (request_count is read before and after), and one serve --http with it as `modern` behind
 * view m: what the Mcp-Param checks, the inner hop of a chain and a replica of the balancer need.
 */
const modernHttp = once(async () => {
  const upstream = await startModernHttp();
  children.push(upstream.child);
  return upstream;
});
const modernHttpConfig = async () => writeConfig({ mcp_servers: { modern: { url: (await modernHttp()).url } }, tool_views: { m: { servers: ['modern'] } } });
const servedModernHttp = once(async () => startHttp(await modernHttpConfig()));

async function connected(client: Client, url: string, fetchWith?: typeof fetch): Promise<Client> {
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetchWith ? { fetch: fetchWith } : {}));
  return client;
}

/** The serve --http of 'serve --http speaks both eras', whose everything the subscription test shares. */
const servedBothEras = once(async () => {
  const config = writeConfig({
    mcp_servers: { modern: modernStdio(), strict: modernStdio('--modern-only', '--name', 'strict'), everything: SERVERS.everything },
    tool_views: {
      m: { servers: ['modern'] },
      strict: { servers: ['strict'] },
      old: { servers: { everything: { tools: { echo: {}, 'trigger-elicitation-request': {}, 'trigger-sampling-request': {} } } } },
      // The resource subscriptions test's (subscriptions and list changes cross eras).
      e: { servers: ['everything'] },
    },
  });
  return startHttp(config);
});

describe('serve --http speaks both eras', () => {
  let base = '';
  beforeAll(async () => {
    base = (await servedBothEras()).base;
  }, 30_000);

  it('a 2026-07-28 client gets server/discover, stateless calls, and its own era upstream', async () => {
    const client = await connected(sdkClient('modern'), `${base}/view/m/mcp`);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getDiscoverResult()?.supportedVersions).toContain('2026-07-28');
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['echo', 'whoami', 'ask_name']));
    expect(text(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('Echo: hi');
    // The upstream speaks both eras: a 2026 client's calls reach it in 2026-07-28.
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe('modern-fixture modern');
  }, 30_000);

  it('a 2025-11-25 client gets what it got before: a session, and the upstream in its era', async () => {
    const client = await connected(sdkClient('legacy'), `${base}/view/m/mcp`);
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe('modern-fixture legacy');
  }, 30_000);

  it('MRTR between 2026 peers: the input_required result reaches the client, its retry the server', async () => {
    const asked: string[] = [];
    const client = await connected(sdkClient('modern', asked), `${base}/view/m/mcp`);
    expect(text(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello, Ada!');
    expect(asked).toEqual(['What is your name?']);
  }, 30_000);

  it('a 2025 client through a 2026-only upstream: the server input_required becomes an elicitation request to the client', async () => {
    const asked: string[] = [];
    const client = await connected(sdkClient('legacy', asked), `${base}/view/strict/mcp`);
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe('strict modern');
    expect(text(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello, Ada!');
    expect(asked).toEqual(['What is your name?']);
  }, 30_000);

  it('a 2026 client through a 2025-only upstream (server-everything on the 1.x SDK) calls its tools', async () => {
    const client = await connected(sdkClient('modern'), `${base}/view/old/mcp`);
    expect(client.getProtocolEra()).toBe('modern');
    expect(text(await client.callTool({ name: 'echo', arguments: { message: 'across' } }))).toBe('Echo: across');
  }, 30_000);

  it("a 2026 client through a 2025-only upstream: the server's elicitation and sampling requests come back as input_required", async () => {
    const asked: string[] = [];
    const client = new Client(
      { name: 'eras-bridge', version: '1' },
      { capabilities: { elicitation: { form: {} }, sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { name: 'Ada' } };
    });
    let sampled = '';
    client.setRequestHandler('sampling/createMessage', async (request) => {
      sampled = JSON.stringify(request.params.messages);
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'forty-two' } };
    });
    await connected(client, `${base}/view/old/mcp`);
    const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    expect(asked).toEqual(['Please provide inputs for the following fields:']);
    expect(JSON.stringify(elicited)).toContain('Ada');
    const sampling = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'the answer?' } });
    expect(sampled).toContain('the answer?');
    expect(JSON.stringify(sampling)).toContain('forty-two');
  }, 30_000);

  it('a bridged retry with a request state mcpkit did not issue is refused (-32602)', async () => {
    const client = await connected(sdkClient('modern'), `${base}/view/old/mcp`);
    await expect(
      client.request({
        method: 'tools/call',
        params: { name: 'trigger-elicitation-request', arguments: {}, requestState: 'forged', inputResponses: {} },
      } as never),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('requestState') });
  }, 30_000);

  it('/health names the revision each upstream connection speaks', async () => {
    // A client that declares nothing to relay uses the shared connections, which /health shows.
    const client = await connected(new Client({ name: 'eras-plain', version: '1' }), `${base}/view/strict/mcp`);
    await client.callTool({ name: 'whoami', arguments: {} });
    const health = (await (await fetch(`${base}/health`)).json()) as { upstreams: { name: string; state: string; protocol?: string }[] };
    expect(health.upstreams.find((u) => u.name === 'strict')).toMatchObject({ state: 'ready', protocol: '2026-07-28' });
  }, 30_000);

  it('tasks (io.modelcontextprotocol/tasks) are of the 2026 era: a 2025 session gets -32601, a 2026 request without the extension -32021, at once', async () => {
    const started = Date.now();
    const legacy = await connected(sdkClient('legacy'), `${base}/view/m/mcp`);
    await expect(legacy.request({ method: 'tasks/get', params: { taskId: 'any' } } as never, z.looseObject({}))).rejects.toMatchObject({ code: -32601 });
    // The 2.x SDK client will not send tasks/get on 2026-07-28 (the method left the core protocol), so by hand.
    const response = await fetch(`${base}/view/m/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tasks/get',
        'mcp-name': 'any',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/get',
        params: {
          taskId: 'any',
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const body = (await response.json()) as { error?: { code: number; message: string; data?: unknown } };
    // mcpkit hosts tasks (test/e2e/tasks.test.ts): a request that does not declare the extension is told which capability it lacks.
    expect(body.error?.code, body.error?.message).toBe(-32021);
    expect(body.error?.data).toEqual({ requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
    expect(Date.now() - started).toBeLessThan(5000);
  }, 30_000);

  it("a 2026 server decides by the client's own capabilities, and its protocol error reaches the client as that error", async () => {
    // No elicitation declared: the upstream refuses to ask (-32021), as it would asked directly.
    const client = new Client({ name: 'eras-bare', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await connected(client, `${base}/view/m/mcp`);
    await expect(client.callTool({ name: 'ask_name', arguments: {} })).rejects.toMatchObject({ code: -32021 });
  }, 30_000);
});

describe("a 2026-07-28 client's Mcp-Param headers (SEP-2243) are checked by mcpkit", () => {
  /** A fetch that changes (a value) or removes (null) the Mcp-Param-Region header of what a client sends. */
  const tampering =
    (region: string | null): typeof fetch =>
    (input, init) => {
      const headers = new Headers(init?.headers);
      if (region === null) headers.delete('mcp-param-region');
      else if (headers.has('mcp-param-region')) headers.set('mcp-param-region', region);
      return fetch(input, { ...init, headers });
    };

  it('a header that disagrees with the body, or is missing, is refused with -32020 before the call goes upstream', async () => {
    const url = `${(await servedModernHttp()).base}/view/m/mcp`;
    const honest = await connected(sdkClient('modern'), url);
    const count = async () => Number(text(await honest.callTool({ name: 'request_count', arguments: {} })));
    // The SDK client mirrors region into Mcp-Param-Region itself; mcpkit and the upstream agree.
    expect(text(await honest.callTool({ name: 'where', arguments: { region: 'eu-west' } }))).toBe('region=eu-west');
    expect(text(await honest.callTool({ name: 'where', arguments: { region: 'Zürich' } }))).toBe('region=Zürich'); // Base64 on the wire
    const before = await count();
    for (const [region, why] of [
      ['us-east', /Mcp-Param-Region header decodes to "us-east" but the body carries region="eu-west"/],
      ['=?base64?SGVsbG8?=', /Mcp-Param-Region header carries an invalid Base64 sentinel value/],
      [null, /body carries region="eu-west" but the Mcp-Param-Region header is absent/],
    ] as const) {
      const client = await connected(sdkClient('modern'), url, tampering(region));
      const refused = client.callTool({ name: 'where', arguments: { region: 'eu-west' } });
      await expect(refused).rejects.toMatchObject({ code: -32020 });
      await expect(refused).rejects.toThrow(why);
      // A call without the argument needs no header, on the same client.
      expect(text(await client.callTool({ name: 'where', arguments: {} }))).toBe('region=<none>');
    }
    // The three refused calls never reached the server; the three without region did.
    expect(await count()).toBe(before + 3);
  }, 60_000);

  it('a pre_call hook that changes a header-marked argument: the upstream gets headers that match what it is sent', async () => {
    const upstream = await modernHttp();
    const config = writeConfig({ mcp_servers: { modern: { url: upstream.url } }, tool_views: { m: { servers: ['modern'] } }, hooks: { pre_call: 'hook.mjs' } });
    writeFileSync(
      join(dirname(config), 'hook.mjs'),
      "export function pre_call(args, ctx) { return ctx.upstream_tool === 'where' && args.region ? { args: { ...args, region: `${args.region}-hooked` } } : undefined; }\n",
    );
    const served = await startHttp(config);
    const client = await connected(sdkClient('modern'), `${served.base}/view/m/mcp`);
    expect(text(await client.callTool({ name: 'where', arguments: { region: 'eu' } }))).toBe('region=eu-hooked');
    expect(text(await client.callTool({ name: 'where', arguments: { region: 'Zürich' } }))).toBe('region=Zürich-hooked');
    expect(text(await client.callTool({ name: 'where', arguments: {} }))).toBe('region=<none>');
  }, 60_000);
});

describe('tokens and views hold for 2026-07-28 clients as for 2025 ones', () => {
  it("a modern client needs the token, and a view's token opens that view only", async () => {
    // The file's modern fixture over HTTP: what is tested is serve's door, not how it reaches the upstream.
    const config = writeConfig({
      mcp_servers: { modern: { url: (await modernHttp()).url } },
      tool_views: { m: { servers: ['modern'], tokens: ['view-token'] }, other: { servers: ['modern'] } },
    });
    const served = await startHttp(config, { token: 'serve-token' });
    const withToken = (token?: string) => {
      const client = sdkClient('modern');
      clients.push(client);
      const headers = token ? { Authorization: `Bearer ${token}` } : undefined;
      return (url: string) =>
        client.connect(new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : undefined)).then(() => client);
    };
    await expect(withToken()(`${served.base}/view/m/mcp`)).rejects.toThrow(/401|[Uu]nauthori[sz]ed|HTTP_AUTHENTICATION/);
    await expect(withToken('wrong')(`${served.base}/view/m/mcp`)).rejects.toThrow(/401|[Uu]nauthori[sz]ed|HTTP_AUTHENTICATION/);
    const viaView = await withToken('view-token')(`${served.base}/view/m/mcp`);
    expect(viaView.getProtocolEra()).toBe('modern');
    expect(text(await viaView.callTool({ name: 'whoami', arguments: {} }))).toBe('modern-fixture modern');
    // A known token on a view it does not open is 403 insufficient_scope (RFC 6750), not 401: no login would help.
    await expect(withToken('view-token')(`${served.base}/view/other/mcp`)).rejects.toThrow(/403|[Ii]nsufficient scope/);
    const viaServe = await withToken('serve-token')(`${served.base}/view/other/mcp`);
    expect(text(await viaServe.callTool({ name: 'whoami', arguments: {} }))).toBe('modern-fixture modern');
  }, 30_000);
});

describe('serve over stdio speaks both eras', () => {
  const config = () => writeConfig({ mcp_servers: { modern: modernStdio() }, tool_views: { m: { servers: ['modern'] } } });

  for (const era of ['modern', 'legacy'] as const) {
    it(`a ${era === 'modern' ? '2026-07-28' : '2025-11-25'} client calls through, in its era`, async () => {
      const asked: string[] = [];
      const client = sdkClient(era, asked);
      clients.push(client);
      await serveStdioInProcess({ argv: ['--view', 'm', '--config', config()], client });
      expect(client.getProtocolEra()).toBe(era);
      expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe(`modern-fixture ${era}`);
      expect(text(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello, Ada!');
      expect(asked).toEqual(['What is your name?']);
      await client.close();
    }, 30_000);
  }
});

describe('a 2026-07-28 client through mcpkit behind mcpkit', () => {
  it('reaches the upstream in 2026-07-28 through both hops, MRTR included', async () => {
    const inner = await servedModernHttp();
    const outer = await startHttp(writeConfig({ mcp_servers: { inner: { url: `${inner.base}/view/m/mcp` } }, tool_views: { o: { servers: ['inner'] } } }));
    const asked: string[] = [];
    const client = await connected(sdkClient('modern', asked), `${outer.base}/view/o/mcp`);
    expect(client.getProtocolEra()).toBe('modern');
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe('modern-fixture modern');
    expect(text(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello, Ada!');
    expect(asked).toEqual(['What is your name?']);
  }, 60_000);
});

describe('subscriptions and list changes cross eras', () => {
  it('a 2025 client subscribed to a resource of a 2026-only server hears its updates and its list changes', async () => {
    const upstream = await startModernHttp('--modern-only');
    children.push(upstream.child);
    const served = await startHttp(writeConfig({ mcp_servers: { strict: { url: upstream.url } }, tool_views: { s: { servers: ['strict'] } } }));
    const client = sdkClient('legacy');
    const updated: string[] = [];
    let listChanged = 0;
    client.setNotificationHandler('notifications/resources/updated', async (n) => void updated.push(n.params.uri));
    client.setNotificationHandler('notifications/tools/list_changed', async () => void listChanged++);
    await connected(client, `${served.base}/view/s/mcp`);
    await client.subscribeResource({ uri: 'fixture://counter' });
    expect(text(await client.callTool({ name: 'bump', arguments: {} }))).toBe('1');
    expect(await waitFor(() => updated.includes('fixture://counter') && listChanged > 0, 5000)).toBe(true);
    // Unsubscribed: the next change is not heard.
    await client.unsubscribeResource({ uri: 'fixture://counter' });
    updated.length = 0;
    await client.callTool({ name: 'bump', arguments: {} });
    await new Promise((r) => setTimeout(r, 300));
    expect(updated).toEqual([]);
  }, 60_000);

  it('a 2026 client listening for a resource hears the updates a 2025 server sends its subscribers', async () => {
    const client = sdkClient('modern');
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', async (n) => void updated.push(n.params.uri));
    await connected(client, `${(await servedBothEras()).base}/view/e/mcp`);
    const subscription = await client.listen({ resourceSubscriptions: ['demo://resource/dynamic/text/1'] });
    expect(subscription.honoredFilter.resourceSubscriptions).toEqual(['demo://resource/dynamic/text/1']);
    // server-everything tells its subscribers about their resources once this tool is on.
    await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    expect(await waitFor(() => updated.includes('demo://resource/dynamic/text/1'), 8000)).toBe(true);
    await subscription.close();
  }, 60_000);
});

describe('mcpkit as a client speaks both eras (mcp_servers.NAME.protocol)', () => {
  const serverTest = async (entry: object) => {
    const config = writeConfig({ mcp_servers: { it: entry } });
    const result = await runCommand(['server', 'test', 'it', '--json', '--config', config]);
    return { result, parsed: result.code === 0 ? (JSON.parse(result.stdout) as { protocol: string; tools: { name: string }[] }) : undefined };
  };

  it('auto probes a remote server and speaks 2026-07-28 to one that offers it; a pin to 2025-11-25 is kept', async () => {
    const upstream = await modernHttp();
    expect((await serverTest({ url: upstream.url })).parsed?.protocol).toBe('2026-07-28');
    expect((await serverTest({ url: upstream.url, protocol: '2025-11-25' })).parsed?.protocol).toBe('2025-11-25');
  }, 30_000);

  it('a stdio server is started once, in 2025-11-25 first, and in 2026-07-28 when it speaks nothing else; pinned to 2026-07-28, once', async () => {
    // Each start of the server writes a line to its log first (sh, then exec: the same process).
    const log = join(tempDir('mcpkit-test-starts-'), 'starts.log');
    const logged = (...flags: string[]) => ({
      command: 'sh',
      args: ['-c', `echo start >> '${log}'; exec "$0" "$@"`, process.execPath, MODERN_SERVER, '--stdio', ...flags],
    });
    const starts = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
    expect((await serverTest(logged())).parsed?.protocol).toBe('2025-11-25');
    expect(starts()).toBe(1);
    const strict = await serverTest(logged('--modern-only'));
    expect(strict.parsed?.protocol).toBe('2026-07-28');
    expect(strict.parsed?.tools.map((t) => t.name)).toContain('ask_name');
    // The 2025 handshake it refused, then 2026-07-28 probed on the process that serves.
    expect(starts()).toBe(3);
    const pinned = await serverTest({ ...logged('--modern-only'), protocol: '2026-07-28' });
    expect(pinned.parsed?.protocol).toBe('2026-07-28');
    expect(starts(), 'a pin probes on the process that serves, not on a throw-away one first').toBe(4);
  }, 30_000);

  it('a pinned server whose server/discover answer is over max_message_bytes is told so, not taken for one of another era', async () => {
    const { result } = await serverTest({ ...modernStdio('--modern-only'), protocol: '2026-07-28', max_message_bytes: 200 });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/answer to server\/discover was \d+ bytes, more than mcp_servers\.it\.max_message_bytes \(200\)/);
    expect(result.stdout + result.stderr).not.toMatch(/does not speak MCP/);
  }, 30_000);

  it('a pin to 2026-07-28 against a 2025-only server fails with a clear error, not a hang', async () => {
    const started = Date.now();
    // server-memory is on the 1.x SDK as server-everything is, and starts for less.
    const { result } = await serverTest({ ...SERVERS.memory, protocol: '2026-07-28' });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/does not speak MCP 2026-07-28/);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);

  it('a 2026-07-28 call through `mcpkit call` reaches the tool', async () => {
    const upstream = await modernHttp();
    const config = writeConfig({ mcp_servers: { m: { url: upstream.url } } });
    const result = await runCommand(['call', 'whoami', '--json', '--config', config]);
    expect(result.stdout).toContain('modern-fixture modern');
  }, 30_000);
});

/** A round-robin HTTP balancer: each request goes to the next replica (no affinity of any kind). */
function roundRobin(targets: string[]): Promise<{ server: Server; url: string; hits: number[] }> {
  const hits = targets.map(() => 0);
  let next = 0;
  const server = createServer((req, res) => {
    const at = next++ % targets.length;
    hits[at]!++;
    const target = new URL(targets[at]!);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits })),
  );
}

describe('two serve --http replicas behind a round-robin balancer', () => {
  it('serve a 2026-07-28 client without sticky sessions', async () => {
    // Two replicas of one config: the file's serve of the modern fixture, and a second one in a
    // process of its own, so that nothing of one process's own (a key, a cache) carries a retry.
    const [a, b] = await Promise.all([servedModernHttp(), modernHttpConfig().then((config) => startHttpProcess(config))]);
    children.push(b.child);
    const balancer = await roundRobin([a.base, b.base]);
    try {
      const asked: string[] = [];
      const client = await connected(sdkClient('modern', asked), `${balancer.url}/view/m/mcp`);
      for (let i = 0; i < 4; i++) expect(text(await client.callTool({ name: 'echo', arguments: { message: `n${i}` } }))).toBe(`Echo: n${i}`);
      // An MRTR round trip whose retry lands on the other replica.
      expect(text(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('Hello, Ada!');
      expect(balancer.hits[0]).toBeGreaterThanOrEqual(3);
      expect(balancer.hits[1]).toBeGreaterThanOrEqual(3);
    } finally {
      await new Promise((resolve) => balancer.server.close(resolve));
    }
  }, 60_000);
});
