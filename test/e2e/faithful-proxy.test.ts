import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, LoggingMessageNotification } from '@modelcontextprotocol/client';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, tempDir } from '../helpers/cli.js';
import { FIXTURES, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';
import { serveHttpAsCli, serveStdioInProcess, type InProcessServe } from '../helpers/in-process.js';

/**
 * mcpkit as an intermediary an agent cannot tell apart from the server behind it: requests the
 * server sends (sampling, elicitation, roots) reach the client whose call caused them, and
 * logging, subscriptions and completion travel both ways. Upstreams: server-everything from npm,
 * and test/fixtures/relay-server.mjs (the SDK's own server, deterministic).
 */
const relay = FIXTURES.relay;

interface Seen {
  sampled: string[];
  elicited: string[];
  logs: LoggingMessageNotification['params'][];
  updates: string[];
}

/** An SDK client that can sample, elicit and list roots, answering with its own label so answers can be told apart. */
function capableClient(label: string): { client: Client; seen: Seen } {
  const seen: Seen = { sampled: [], elicited: [], logs: [], updates: [] };
  const client = new Client({ name: `e2e-${label}`, version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } });
  client.setRequestHandler('sampling/createMessage', async (request) => {
    const content = request.params.messages[0]!.content;
    const first = Array.isArray(content) ? content[0] : content;
    seen.sampled.push(first?.type === 'text' ? first.text : String(first?.type));
    return { role: 'assistant', content: { type: 'text', text: `answer from ${label}` }, model: `model-${label}` };
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    seen.elicited.push(request.params.message);
    return { action: 'accept', content: { name: `name from ${label}` } };
  });
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: `file:///roots/${label}`, name: label }] }));
  client.setNotificationHandler('notifications/message', async (n) => void seen.logs.push(n.params));
  client.setNotificationHandler('notifications/resources/updated', async (n) => void seen.updates.push(n.params.uri));
  return { client, seen };
}

/** serve --config CONFIG [--view V] over stdio, in this process (helpers/in-process.ts), to a client that can do everything. */
async function overStdio(config: string, args: string[], label = 'stdio') {
  const made = capableClient(label);
  const view = args[0] === '--view' ? args[1] : undefined;
  // As the process was started: the config from MCPKIT_CONFIG, the exposure the config says.
  await serveStdioInProcess({ env: cleanEnv({ MCPKIT_CONFIG: config }), client: made.client, flags: { exposure: undefined, ...(view ? { view } : {}) } });
  return made;
}

const textOf = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

// A test has its own serve (in this process, or a child), upstreams and clients, but for two
// groups that share one: the four relays tests over stdio (in turns), and the serve --http of
// 'over HTTP' (its two tests, each its own clients). The tests run at once, a few at a time
// (maxConcurrency), each waiting on its processes while the others run.
describe.concurrent('over stdio, through serve --view', () => {
  const config = writeConfig({
    mcp_servers: { everything: SERVERS.everything, one: relay('one'), two: relay('two') },
    tool_views: { ev: { servers: ['everything'] }, relays: { servers: ['one', 'two'] } },
  });

  it('sampling and elicitation of a real server (server-everything) round-trip to the client', async ({ onTestFinished }) => {
    const { client, seen } = await overStdio(config, ['--view', 'ev']);
    onTestFinished(() => client.close());
    const names = (await client.listTools()).tools.map((t) => t.name);
    // server-everything offers these only to a client that declared sampling / elicitation: it was told.
    expect(names).toEqual(expect.arrayContaining(['trigger-sampling-request', 'trigger-elicitation-request']));
    const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'the sky?' } });
    expect(seen.sampled).toEqual([expect.stringContaining('the sky?')]);
    expect(textOf(sampled)).toContain('answer from stdio');
    const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    expect(seen.elicited).toHaveLength(1);
    expect(elicited.isError).toBeFalsy();
  });

  // One serve of the relays view for the four tests below, taken in turns (describe.sequential):
  // each looks at what its own requests bring back, and none needs a fresh serve or fresh
  // upstreams (each serve started both relays again, twice: a CPU-second of a suite short of CPU).
  // Logging first, so that it sees the session as a fresh one would (nothing logged before it).
  describe.sequential('one serve of the relays view, in turns', () => {
    let shared: Awaited<ReturnType<typeof overStdio>>;
    beforeAll(async () => {
      shared = await overStdio(config, ['--view', 'relays']);
    });
    afterAll(() => shared?.client.close());

    it('logging/setLevel changes what arrives', async () => {
      const { client, seen } = shared;
      expect(client.getServerCapabilities()?.logging).toBeDefined();
      await client.setLoggingLevel('error');
      await client.callTool({ name: 'one__log_all', arguments: {} });
      expect(await waitFor(() => seen.logs.length >= 4, 20_000)).toBe(true);
      expect(seen.logs.map((l) => l.level)).toEqual(['error', 'critical', 'alert', 'emergency']);
      seen.logs.length = 0;
      await client.setLoggingLevel('debug');
      await client.callTool({ name: 'two__log_all', arguments: {} });
      expect(await waitFor(() => seen.logs.length >= 8, 20_000)).toBe(true);
      expect(seen.logs.map((l) => l.data)).toEqual(
        ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'].map((l) => `${l} from two`),
      );
    });

    it('roots come from the client, and a roots change reaches the server', async () => {
      const { client } = shared;
      expect(textOf(await client.callTool({ name: 'one__client_roots', arguments: {} }))).toBe('roots: file:///roots/stdio');
      await client.sendRootsListChanged();
      expect(await waitFor(async () => textOf(await client.callTool({ name: 'one__roots_changes', arguments: {} })) === '1', 20_000)).toBe(true);
    });

    it('a resource subscription delivers resources/updated, and unsubscribing stops it', async () => {
      const { client, seen } = shared;
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      await client.subscribeResource({ uri: 'test://watched' });
      await client.callTool({ name: 'one__touch', arguments: {} });
      expect(await waitFor(() => seen.updates.length === 1, 20_000)).toBe(true);
      expect(seen.updates).toEqual(['test://watched']);
      await client.unsubscribeResource({ uri: 'test://watched' });
      await client.callTool({ name: 'one__touch', arguments: {} });
      await new Promise((r) => setTimeout(r, 300));
      expect(seen.updates).toEqual(['test://watched']);
    });

    it('completion/complete goes to the server that owns the prompt, under its own name', async () => {
      const { client } = shared;
      const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
      expect(prompts).toEqual(['one__greet', 'two__greet']);
      const r = await client.complete({ ref: { type: 'ref/prompt', name: 'two__greet' }, argument: { name: 'who', value: 'two-a' } });
      expect(r.completion.values).toEqual(['two-ada', 'two-alan']);
      await expect(client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'who', value: '' } })).rejects.toThrow(/Unknown prompt/);
    });
  });

  it('a view without servers declares no prompts, resources or completions', async ({ onTestFinished }) => {
    const plain = writeConfig({ tool_views: { mine: { groups: ['config'] } } });
    const { client } = await overStdio(plain, ['--view', 'mine']);
    onTestFinished(() => client.close());
    const caps = client.getServerCapabilities()!;
    expect(caps.tools).toBeDefined();
    expect(caps.logging).toBeDefined();
    expect([caps.prompts, caps.resources, caps.completions]).toEqual([undefined, undefined, undefined]);
  });
});

describe.concurrent('over HTTP, several clients at once', () => {
  let served: InProcessServe;
  let url: string;
  // A remote client's roots reach a server only when its entry says so (roots: forward).
  const config = writeConfig({ mcp_servers: { one: { ...relay('one'), roots: 'forward' } }, tool_views: { relays: { servers: ['one'] } } });

  // serve --http in this process: what these tests check is its HTTP face, not its process.
  // As the process was started: the exposure the config says, the terminal's environment.
  beforeAll(async () => {
    served = await serveHttpAsCli(config);
    url = served.url;
  });
  afterAll(() => served?.close());

  it('two clients calling a tool that samples at the same time each get only their own request', async () => {
    const a = capableClient('A');
    const b = capableClient('B');
    await a.client.connect(new StreamableHTTPClientTransport(new URL(`${url}/view/relays/mcp`)));
    await b.client.connect(new StreamableHTTPClientTransport(new URL(`${url}/view/relays/mcp`)));
    try {
      const calls = await Promise.all([
        ...[1, 2, 3].map((i) => a.client.callTool({ name: 'ask_llm', arguments: { prompt: `from A #${i}` } })),
        ...[1, 2, 3].map((i) => b.client.callTool({ name: 'ask_llm', arguments: { prompt: `from B #${i}` } })),
      ]);
      expect(a.seen.sampled.sort()).toEqual(['from A #1', 'from A #2', 'from A #3']);
      expect(b.seen.sampled.sort()).toEqual(['from B #1', 'from B #2', 'from B #3']);
      expect(calls.slice(0, 3).map(textOf)).toEqual(Array(3).fill('sampled: answer from A'));
      expect(calls.slice(3).map(textOf)).toEqual(Array(3).fill('sampled: answer from B'));
      // Elicitation and roots likewise.
      expect(textOf(await b.client.callTool({ name: 'ask_user', arguments: {} }))).toBe('elicited: accept {"name":"name from B"}');
      expect(textOf(await a.client.callTool({ name: 'client_roots', arguments: {} }))).toBe('roots: file:///roots/A');
      expect(a.seen.elicited).toEqual([]);
    } finally {
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });

  it('refuses a foreign Origin or Host (DNS rebinding) with 403, and an unsupported protocol version with 400', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    // node:http, since fetch will not send a Host header of our choosing.
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          `${url}/mcp`,
          { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.once('error', reject);
        req.end(JSON.stringify(init));
      });
    expect(await post({ origin: 'https://evil.example' })).toBe(403);
    expect(await post({ origin: 'null' })).toBe(403);
    expect(await post({ host: 'evil.example:8000' })).toBe(403);
    expect(await post({ 'mcp-protocol-version': '1999-01-01' })).toBe(400);
    expect(await post({ origin: url.replace('127.0.0.1', 'localhost') })).toBe(200);
    expect(await post({ host: url.replace('http://', '').replace('127.0.0.1', 'localhost') })).toBe(200);
  });
});

describe.concurrent('mcpkit behind mcpkit', () => {
  it('sampling and logging cross two levels of proxy', async () => {
    const inner = writeConfig({ mcp_servers: { one: relay('one') }, tool_views: { inner: { servers: ['one'] } } });
    const outer = writeConfig({
      mcp_servers: { inner: { command: process.execPath, args: [BIN, 'serve', '--view', 'inner', '--config', inner] } },
      tool_views: { outer: { servers: ['inner'] } },
    });
    const { client, seen } = await overStdio(outer, ['--view', 'outer'], 'top');
    try {
      expect(textOf(await client.callTool({ name: 'ask_llm', arguments: { prompt: 'two levels' } }))).toBe('sampled: answer from top');
      expect(seen.sampled).toEqual(['two levels']);
      await client.setLoggingLevel('critical');
      await client.callTool({ name: 'log_all', arguments: {} });
      expect(await waitFor(() => seen.logs.length >= 3, 20_000)).toBe(true);
      expect(seen.logs.map((l) => l.level)).toEqual(['critical', 'alert', 'emergency']);
    } finally {
      await client.close();
    }
  });
});

describe.concurrent('the other faces', () => {
  it('filter run relays sampling and logs like serve', async () => {
    const made = capableClient('filter');
    const filtered = FIXTURES.relay('filtered');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'filter', 'run', '--include', 'ask_*', '--include', 'log_*', '--', filtered.command, ...filtered.args],
      env: cleanEnv() as Record<string, string>,
      stderr: 'ignore',
    });
    await made.client.connect(transport);
    try {
      expect((await made.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask_llm', 'ask_user', 'log_all']);
      expect(textOf(await made.client.callTool({ name: 'ask_llm', arguments: { prompt: 'filtered?' } }))).toBe('sampled: answer from filter');
      await made.client.setLoggingLevel('emergency');
      await made.client.callTool({ name: 'log_all', arguments: {} });
      expect(await waitFor(() => made.seen.logs.length === 1, 20_000)).toBe(true);
      expect(made.seen.logs[0]).toMatchObject({ level: 'emergency', data: 'emergency from filtered' });
    } finally {
      await made.client.close();
    }
  });

  it('an upstream reached over streamable HTTP (mcpkit serve --http behind mcpkit over stdio) relays sampling and elicitation', async () => {
    const innerConfig = writeConfig({ mcp_servers: { one: relay('one') }, tool_views: { inner: { servers: ['one'] } } });
    // The inner serve --http in this process too: the HTTP between the two is what is tested.
    const inner = await serveHttpAsCli(innerConfig);
    try {
      const base = inner.url;
      const outer = writeConfig({ mcp_servers: { remote: { url: `${base}/view/inner/mcp`, transport: 'http' } } });
      const { client, seen } = await overStdio(outer, [], 'over-http');
      try {
        expect(textOf(await client.callTool({ name: 'remote__ask_llm', arguments: { prompt: 'over http' } }))).toBe('sampled: answer from over-http');
        expect(seen.sampled).toEqual(['over http']);
        expect(textOf(await client.callTool({ name: 'remote__ask_user', arguments: { question: 'who?' } }))).toBe(
          'elicited: accept {"name":"name from over-http"}',
        );
      } finally {
        await client.close();
      }
    } finally {
      await inner.close();
    }
  });
});

describe.concurrent('one call pipeline, one error contract', () => {
  const server = { ...relay('faulty'), timeout_ms: 1500, filter: [{ exclude: 'touch' }] };
  const folder = tempDir();
  const hotLog = join(folder, 'hot.jsonl');
  const ordinaryLog = join(folder, 'ordinary.jsonl');
  // Listed directly, so a listing shows when the server's tools are in the catalog (search exposure would list only its meta-tools).
  const hot = writeConfig({ mcp_servers: { faulty: server }, serve: { audit_log: hotLog, exposure: 'direct' } });
  // Any hook sends calls down the ordinary path (the fixture's hooks leave these tools alone).
  const ordinary = writeConfig({
    mcp_servers: { faulty: server },
    hooks: { pre_call: join(ROOT, 'test/fixtures/hooks.mjs') },
    serve: { audit_log: ordinaryLog, exposure: 'direct' },
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** The error a call ends in (an isError result's error object, or a JSON-RPC error), without timings. */
  async function faultOf(client: Client, name: string, args: Record<string, unknown> = {}): Promise<unknown> {
    try {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const structured = r.structuredContent as { error?: unknown } | undefined;
      return { isError: r.isError, ...(structured?.error ? { error: structured.error } : { content: r.content }) };
    } catch (error) {
      return { rpc: (error as { code?: number }).code, message: (error as Error).message };
    }
  }

  /**
   * The audit log's lines, without what differs from run to run (the time and how long each call
   * took), and each request's id counted from the first call's: how many listings came before the
   * server's tools were listed differs too.
   */
  const auditOf = (path: string) => {
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const first = lines[0]?.request as number;
    return lines.map(({ time: _time, duration_ms: _duration, request, ...rest }): Record<string, unknown> => ({
      ...rest,
      request: (request as number) - first,
    }));
  };

  it('gives the same answer and the same audit line for the same call on the hot path and the ordinary path, faults included', async () => {
    const results: Record<string, unknown>[] = [];
    for (const config of [hot, ordinary]) {
      const { client } = await overStdio(config, []);
      try {
        // timeout_ms (1500) bounds the server's handshake too: on a loaded machine its first start may miss it, and serve
        // starts it again on its reconnect schedule and lists its tools then. Listings are not audited, so waiting costs no line.
        const listed = async () => (await client.listTools()).tools.some((t) => t.name === 'faulty__fail');
        expect(await waitFor(listed, 30_000, 250)).toBe(true);
        await client.callTool({ name: 'faulty__fail', arguments: {} }); // the catalog is known: the hot path is open
        results.push({
          toolError: await faultOf(client, 'faulty__fail'),
          rpcError: await faultOf(client, 'faulty__reject'),
          invalid: await faultOf(client, 'faulty__strict', { n: 'x' }),
          hidden: await faultOf(client, 'faulty__touch'),
          timeout: await faultOf(client, 'faulty__slow', { ms: 4000 }),
          crash: await faultOf(client, 'faulty__crash'),
        });
      } finally {
        await client.close();
      }
    }
    const [onHot, onOrdinary] = results;
    expect(onHot).toEqual(onOrdinary);
    expect(onHot).toMatchObject({
      toolError: { isError: true, content: [{ type: 'text', text: 'failed as a tool' }] },
      rpcError: {
        isError: true,
        error: { code: 'UPSTREAM_ERROR', message: expect.stringContaining('rejected on purpose'), details: { server: 'faulty', tool: 'reject' } },
      },
      invalid: { isError: true, error: { code: 'INVALID_INPUT', message: 'Invalid arguments for faulty__strict: "n": must be number' } },
      hidden: { rpc: -32602 },
      timeout: { isError: true, error: { code: 'TIMEOUT', hint: expect.stringContaining('timeout_ms') } },
      crash: { isError: true, error: { code: 'UNAVAILABLE', details: { server: 'faulty' }, hint: expect.stringContaining('server test faulty') } },
    });
    expect(
      await waitFor(() => existsSync(hotLog) && existsSync(ordinaryLog) && auditOf(hotLog).length === 7 && auditOf(ordinaryLog).length === 7, 20_000),
    ).toBe(true);
    const hotLines = auditOf(hotLog);
    expect(hotLines).toEqual(auditOf(ordinaryLog));
    expect(hotLines.map((l) => [l.name, l.outcome, l.error_code])).toEqual([
      ['faulty__fail', 'tool_error', null],
      ['faulty__fail', 'tool_error', null],
      ['faulty__reject', 'tool_error', 'UPSTREAM_ERROR'],
      ['faulty__strict', 'tool_error', 'INVALID_INPUT'],
      ['faulty__touch', 'protocol_error', -32602],
      ['faulty__slow', 'tool_error', 'TIMEOUT'],
      ['faulty__crash', 'tool_error', 'UNAVAILABLE'],
    ]);
  }, 60_000);
});
