import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, runCommand, stopChild } from '../helpers/cli.js';
import { type InProcessServe, serveHttpAsCli, serveHttpInProcess } from '../helpers/in-process.js';
import { serveHttpChild } from '../helpers/serve.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * serve.clients over serve --http, with real SDK clients of both eras and server-everything as the
 * upstream: who may call what (listing equals permission, the meta-tools and composites included),
 * rate and concurrency limits counted under a burst, an upstream's queue, and who did it in the
 * audit log, /metrics and `mcpkit stats --by client`.
 */

const ERAS = ['2025-11-25', '2026-07-28'] as const;
type Era = (typeof ERAS)[number];
const HOOKS = join(ROOT, 'test/fixtures/hooks.mjs');

let served: InProcessServe;
let config: string;
const opened: Client[] = [];

beforeAll(async () => {
  config = writeConfig({
    mcp_servers: { everything: SERVERS.everything },
    tool_views: {
      research: { servers: ['everything'], exposure: 'search', tools: ['echo_twice'] },
      plain: { servers: ['everything'], exposure: 'direct' },
    },
    composite_tools: {
      echo_twice: {
        inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        chain: [
          { name: 'first', tool: 'everything.echo', args: { message: '{inputs.text}' } },
          { name: 'second', tool: 'everything.echo', args: { message: 'again' } },
        ],
      },
      echo_and_sum: {
        inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        parallel: {
          echoed: { tool: 'everything.echo', args: { message: '{inputs.text}' } },
          summed: { tool: 'everything.get-sum', args: { a: 1, b: 2 } },
        },
      },
    },
    hooks: { pre_call: HOOKS },
    serve: {
      audit_log: 'audit.jsonl',
      token: 'serve-token',
      exposure: 'direct',
      clients: {
        alice: { token: 'alice-token', tools: ['+ *echo*', '- *'] },
        bob: { token: 'bob-token', read_only: true },
        dave: { token: 'dave-token', rate: '3/min' },
        carol: { token: 'carol-token', max_concurrent: 2 },
        rita: { token: 'rita-token', views: ['research'] },
      },
    },
  });
  served = await serveHttpInProcess(config, { exposure: undefined });
});
afterAll(async () => {
  await Promise.allSettled(opened.map((c) => c.close()));
  await served?.close();
});

async function connect(token: string, era: Era, path = '/mcp') {
  const client = new Client({ name: `agent-${token}`, version: '1.0' }, era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  opened.push(client);
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
/** A call's JSON-RPC error code, or the tool result when it answered. */
async function outcome(client: Client, name: string, args: Record<string, unknown> = {}) {
  try {
    return { result: (await client.callTool({ name, arguments: args }, { timeout: 30_000 })) as CallToolResult };
  } catch (error) {
    return { code: (error as { code?: number }).code, message: (error as Error).message };
  }
}
const errorOf = (result: CallToolResult | undefined) => (result?.structuredContent as { error?: { code: string; details?: Record<string, unknown> } })?.error;
const text = (result: CallToolResult | undefined) => (result?.content?.[0] as { text?: string } | undefined)?.text ?? '';

describe.each(ERAS)('who may call what, %s', (era) => {
  it('two identities see different lists, and each is refused outside its own as if the tool did not exist', async () => {
    const alice = await connect('alice-token', era);
    const bob = await connect('bob-token', era);
    const aliceTools = await names(alice);
    expect(aliceTools).toEqual(['echo_twice', 'everything__echo']);
    const bobTools = (await bob.listTools()).tools;
    expect(bobTools.map((t) => t.name)).toContain('everything__get-sum');
    expect(bobTools.map((t) => t.name)).not.toContain('everything__gzip-file-as-resource');
    expect(bobTools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);

    const refused = await outcome(alice, 'everything__get-sum', { a: 1, b: 2 });
    const unknown = await outcome(alice, 'no_such_tool');
    expect(refused.code).toBe(-32602);
    expect(refused.message).toContain('Unknown tool: everything__get-sum');
    expect(unknown.code).toBe(-32602);
    // The same words as for a tool that does not exist; its hint names only tools she may call.
    expect(
      String(refused.message)
        .replace('everything__get-sum', 'X')
        .replace(/Did you mean .*\?/, ''),
    ).toBe(
      String(unknown.message)
        .replace('no_such_tool', 'X')
        .replace(/Did you mean .*\?/, ''),
    );
    expect(refused.message).not.toMatch(/Did you mean.*get-sum/);
    expect(text((await outcome(bob, 'everything__get-sum', { a: 1, b: 2 })).result)).toContain('3');
    expect((await outcome(bob, 'everything__gzip-file-as-resource', { name: 'x', data: 'aGk=' })).code).toBe(-32602);
    // Prompts and resources by the same rules, over their names: none of everything's is named *echo*.
    expect((await alice.listPrompts()).prompts).toEqual([]);
    expect((await alice.listResources()).resources).toEqual([]);
    const prompt = (await bob.listPrompts()).prompts[0]!;
    // Said as of a prompt that does not exist: the rules do not tell what is there.
    const kept = await alice.getPrompt({ name: prompt.name }).then(
      () => '',
      (e: Error) => e.message,
    );
    const missing = await alice.getPrompt({ name: 'no-such-prompt' }).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(kept).toMatch(/Unknown prompt/);
    expect(kept.replace(prompt.name, 'X')).toBe(missing.replace('no-such-prompt', 'X'));
    const resource = (await bob.listResources()).resources[0]!;
    // Said as of a resource that does not exist.
    const hidden = await alice.readResource({ uri: resource.uri }).then(
      () => '',
      (e: Error) => e.message,
    );
    const absent = await alice.readResource({ uri: 'demo://nothing/here' }).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(hidden).toMatch(/Resource not found/);
    expect(hidden.replaceAll(resource.uri, 'X')).toBe(absent.replaceAll('demo://nothing/here', 'X'));
  }, 60_000);

  it('a composite runs only when every step is allowed, and its steps go through the hooks', async () => {
    const alice = await connect('alice-token', era);
    expect((await outcome(alice, 'echo_and_sum', { text: 'hi' })).code).toBe(-32602);
    const ok = (await outcome(alice, 'echo_twice', { text: 'hi' })).result;
    expect(ok?.isError).toBeFalsy();
    expect(JSON.stringify(ok?.structuredContent)).toContain('Echo: hi (seen by pre_call in default)');
    // The hook refuses the word "forbidden" for echo: the composite's step is refused the same way.
    const stopped = (await outcome(alice, 'echo_twice', { text: 'forbidden' })).result;
    expect(stopped?.isError).toBe(true);
    expect(JSON.stringify(stopped?.structuredContent)).toContain('messages may not be \\"forbidden\\"');
    // A read-only client calls no composite (it is published as a writer).
    const bob = await connect('bob-token', era);
    expect((await outcome(bob, 'echo_twice', { text: 'hi' })).code).toBe(-32602);
  }, 60_000);

  it('on a view with the search meta-tools: search finds only what the client may call, and call_tool refuses the rest', async () => {
    const alice = await connect('alice-token', era, '/view/research/mcp');
    expect(await names(alice)).toEqual(['research_call_tool', 'research_describe_tool', 'research_search_tools']);
    const searched = await outcome(alice, 'research_search_tools', { query: 'sum add numbers echo' });
    expect(searched.result, JSON.stringify(searched)).toBeDefined();
    const found = searched.result!;
    const hits = (found.structuredContent as { results: { name: string }[]; total: number }).results.map((r) => r.name);
    expect(hits).toContain('echo');
    expect(hits).not.toContain('get-sum');
    expect((found.structuredContent as { total: number }).total).toBe(2);
    const refused = (await outcome(alice, 'research_call_tool', { name: 'get-sum', arguments: { a: 1, b: 2 } })).result;
    expect(errorOf(refused)?.code).toBe('NOT_FOUND');
    const described = (await outcome(alice, 'research_describe_tool', { name: 'get-sum' })).result;
    expect(errorOf(described)?.code).toBe('NOT_FOUND');
    expect(text((await outcome(alice, 'research_call_tool', { name: 'echo', arguments: { message: `via meta ${era}` } })).result)).toContain(`via meta ${era}`);
  }, 60_000);
});

describe('routes of a client', () => {
  it('a client given one view is refused the others and /mcp', async () => {
    const rita = await connect('rita-token', '2025-11-25', '/view/research/mcp');
    expect(await names(rita)).toContain('research_search_tools');
    // 403 insufficient_scope: the SDK client says so, and does not start an OAuth login for a valid token.
    await expect(connect('rita-token', '2025-11-25', '/mcp')).rejects.toThrow(/Insufficient scope|403/);
    const views = (await (await fetch(`${served.url}/views`, { headers: { authorization: 'Bearer rita-token' } })).json()) as { views: { name: string }[] };
    expect(views.views.map((v) => v.name)).toEqual(['research']);
    // A view's description lists to a client only the tools it may call, as its tools/list does.
    const plain = (await (await fetch(`${served.url}/views/plain`, { headers: { authorization: 'Bearer alice-token' } })).json()) as {
      tools: { name: string }[];
    };
    expect(plain.tools.map((t) => t.name)).toEqual(['echo']);
  }, 30_000);
});

describe('limits', () => {
  it('rate: a burst of 10 across both eras gets the 3 calls of 3/min, the others RATE_LIMITED with retry_after_ms', async () => {
    const legacy = await connect('dave-token', '2025-11-25');
    const modern = await connect('dave-token', '2026-07-28');
    await legacy.listTools();
    await modern.listTools();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => outcome(i % 2 ? modern : legacy, 'everything__echo', { message: `burst ${i}` }).then((o) => o.result)),
    );
    const refused = results.filter((r) => errorOf(r)?.code === 'RATE_LIMITED');
    const answered = results.filter((r) => text(r).startsWith('Echo: burst'));
    expect([answered.length, refused.length]).toEqual([3, 7]);
    expect(errorOf(refused[0])?.details).toMatchObject({ client: 'dave', retry_after_ms: expect.any(Number) });
    expect(errorOf(refused[0])!.details!.retry_after_ms as number).toBeGreaterThan(0);
  }, 60_000);

  it('max_concurrent: of 6 slow calls at once, 2 run and 4 are refused', async () => {
    const legacy = await connect('carol-token', '2025-11-25');
    const modern = await connect('carol-token', '2026-07-28');
    await Promise.all([legacy.listTools(), modern.listTools()]);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => outcome(i % 2 ? modern : legacy, 'everything__trigger-long-running-operation', { duration: 1.5, steps: 1 })),
    );
    const refused = results.filter((r) => errorOf(r.result)?.code === 'RATE_LIMITED');
    const answered = results.filter((r) => r.result && !r.result.isError);
    expect([answered.length, refused.length]).toEqual([2, 4]);
    // Once they ended, places are free again.
    expect((await outcome(legacy, 'everything__echo', { message: 'after' })).result?.isError).toBeFalsy();
  }, 60_000);
});

describe('who did it', () => {
  it('the audit log names the client of every call, and a meta-tool call is recorded under the tool it ran', async () => {
    const log = join(dirname(config), 'audit.jsonl');
    const lines = () =>
      readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(await waitFor(() => lines().some((l) => l.via === 'research_call_tool' && String(JSON.stringify(l)).includes('alice')), 5_000)).toBe(true);
    const all = lines();
    expect(new Set(all.map((l) => l.client))).toEqual(new Set(['alice', 'bob', 'dave', 'carol']));
    const viaMeta = all.filter((l) => l.via === 'research_call_tool' && l.outcome === 'ok');
    expect(viaMeta.length).toBe(2);
    for (const line of viaMeta) expect(line).toMatchObject({ client: 'alice', name: 'echo', server: 'everything', upstream_name: 'echo', view: 'research' });
    expect(all.find((l) => l.client === 'alice')).toMatchObject({ client_info: { name: 'agent-alice-token', version: '1.0' } });
  });

  it('/metrics labels calls with the client, a meta-tool call under the real tool', async () => {
    const body = await (await fetch(`${served.url}/metrics`, { headers: { authorization: 'Bearer serve-token' } })).text();
    expect(body).toMatch(/mcpkit_tool_calls_total\{view="research",server="everything",tool="echo",client="alice",outcome="ok"\} 2/);
    // Refused by its rate: counted as refused, under the server and tool they were for (both eras).
    expect(body).toMatch(/mcpkit_tool_calls_total\{view="\(default\)",server="everything",tool="everything__echo",client="dave",outcome="refused"\} 7/);
    // The meta-tools' own answers (a search) are mcpkit's.
    expect(body).toMatch(/mcpkit_tool_calls_total\{view="research",server="mcpkit",tool="research_search_tools",client="alice",outcome="ok"\} 2/);
    expect(body).not.toContain('tool="(unknown)",client="alice",outcome="ok"');
  });

  it('mcpkit stats --by client counts calls per identity', async () => {
    const r = await runCommand(['stats', '--config', config, '--by', 'client', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const stats = JSON.parse(r.stdout) as { by_client: { key: string; calls: number; errors: number }[]; by_tool?: unknown };
    expect(stats.by_tool).toBeUndefined();
    expect(stats.by_client.find((row) => row.key === 'dave')).toMatchObject({ calls: 10, errors: 7 });
    expect(stats.by_client.map((row) => row.key)).toContain('alice');
  });
});

describe('an upstream queue (serve.upstream_limits)', () => {
  let limited: InProcessServe;
  beforeAll(async () => {
    const file = writeConfig({
      mcp_servers: { slow: SERVERS.everything, queued: SERVERS.everything },
      serve: { upstream_limits: { slow: { max_concurrent: 1, queue_ms: 300 }, queued: { max_concurrent: 1, queue_ms: 20_000 } } },
    });
    limited = await serveHttpInProcess(file, { exposure: undefined });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('calls past max_concurrent wait up to queue_ms, then are refused; within it they run in turn', async () => {
    const client = new Client({ name: 'queue', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${limited.url}/mcp`)));
    opened.push(client);
    await client.listTools();
    const call = (name: string) => client.callTool({ name, arguments: { duration: 1, steps: 1 } }, { timeout: 30_000 }).then((r) => r as CallToolResult);
    const slow = await Promise.all([1, 2, 3].map(() => call('slow__trigger-long-running-operation')));
    expect(slow.filter((r) => !r.isError)).toHaveLength(1);
    const refused = slow.filter((r) => errorOf(r)?.code === 'RATE_LIMITED');
    expect(refused).toHaveLength(2);
    expect(errorOf(refused[0])?.details).toMatchObject({ server: 'slow' });
    const queued = await Promise.all([1, 2].map(() => call('queued__trigger-long-running-operation')));
    expect(queued.every((r) => !r.isError)).toBe(true);
  }, 60_000);

  it('a queued call can be cancelled: it leaves the queue, and the next call gets its place', async () => {
    const client = new Client({ name: 'cancel', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${limited.url}/mcp`)));
    opened.push(client);
    await client.listTools();
    const running = client.callTool({ name: 'queued__trigger-long-running-operation', arguments: { duration: 2, steps: 1 } }, { timeout: 30_000 });
    const abort = new AbortController();
    // Were it left in the queue, it would run for 10 s before the next call's turn.
    const waiting = client.callTool(
      { name: 'queued__trigger-long-running-operation', arguments: { duration: 10, steps: 1 } },
      { signal: abort.signal, timeout: 30_000 },
    );
    setTimeout(() => abort.abort(), 200);
    await expect(waiting).rejects.toThrow();
    const started = Date.now();
    const next = (await client.callTool({ name: 'queued__echo', arguments: { message: 'next' } }, { timeout: 30_000 })) as CallToolResult;
    expect(text(next)).toBe('Echo: next');
    // It waited for the running call only (2 s at most), not for the cancelled one's 10 s as well.
    expect(Date.now() - started).toBeLessThan(8_000);
    await running;
  }, 60_000);
});

describe('clients follow the config live', () => {
  let live: InProcessServe;
  let file: string;
  const base = (alice: Record<string, unknown> | undefined) => ({
    mcp_servers: { everything: SERVERS.everything },
    serve: { exposure: 'direct', groups: ['config'], clients: { ...(alice ? { alice } : {}), bob: { token: 'bob-token' } } },
  });
  beforeAll(async () => {
    file = writeConfig(base({ token: 'alice-token', tools: ['+ everything__echo', '- *'] }));
    live = await serveHttpInProcess(file, { exposure: undefined });
  });
  afterAll(async () => {
    await live?.close();
  });

  it('changed rules apply to the next request and the client is told to list again; a removed client loses its session', async () => {
    const heard = { changed: 0 };
    const alice = new Client({ name: 'live-alice', version: '1' });
    alice.setNotificationHandler('notifications/tools/list_changed', async () => void heard.changed++);
    const transport = new StreamableHTTPClientTransport(new URL(`${live.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer alice-token' } } });
    await alice.connect(transport);
    opened.push(alice);
    expect((await alice.listTools()).tools.map((t) => t.name)).toEqual(['everything__echo']);

    // The upstream's own first listing may announce itself: count from here.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = heard.changed;
    writeFileSync(file, JSON.stringify(base({ token: 'alice-token', tools: ['+ everything__get-sum', '- *'] })));
    // The new rules show on the next listing once serve has the file; the count may first move for
    // the upstream's own announcement, late on a loaded machine, so the listing is waited for itself.
    const listed = async () => (await alice.listTools()).tools.map((t) => t.name).join(',');
    expect(await waitFor(async () => (await listed()) === 'everything__get-sum', 10_000, 200)).toBe(true);
    expect(await waitFor(() => heard.changed > before, 10_000)).toBe(true);
    await expect(alice.callTool({ name: 'everything__echo', arguments: { message: 'x' } })).rejects.toThrow(/Unknown tool/);

    writeFileSync(file, JSON.stringify(base(undefined)));
    // Her session ends with her: the next request is refused (her token opens nothing now).
    expect(
      await waitFor(
        () =>
          alice.listTools().then(
            () => false,
            () => true,
          ),
        10_000,
      ),
    ).toBe(true);
    const probe = await fetch(`${live.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer alice-token',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(probe.status).toBe(401);
  }, 60_000);
});

describe('issued tokens (clients add, rotate, remove)', () => {
  it('a token made by clients add opens its view at once, rotate refuses the old one at once, remove refuses the new one; the config holds no token', async () => {
    const file = writeConfig({
      mcp_servers: { everything: SERVERS.everything },
      tool_views: { research: { servers: ['everything'] } },
      serve: { token: 'admin-token' },
    });
    const live = await serveHttpInProcess(file, { exposure: undefined });
    const status = (token: string, path = '/view/research/mcp') =>
      fetch(`${live.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
        }),
      }).then((r) => r.status);
    try {
      const added = await runCommand(['clients', 'add', 'alice', '--view', 'research', '--rate', '30/min', '--config', file]);
      expect(added.code, added.stderr).toBe(0);
      const token = added.stdout.trim();
      // stdout is the token alone (TOKEN=$(mcpkit clients add ...)); what to do with it is on stderr.
      expect(token).toMatch(/^mcpk_[A-Za-z0-9_-]{43}$/);
      expect(added.stderr).toContain('shown once');
      const written = readFileSync(file, 'utf8');
      expect(written).not.toContain(token);
      expect(written).toMatch(/token_sha256: [0-9a-f]{64}/);

      // The same name again is refused and changes nothing.
      const again = await runCommand(['clients', 'add', 'alice', '--config', file, '--json']);
      expect(again.code).toBe(1);
      expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: 'CONFLICT' } });
      expect(readFileSync(file, 'utf8')).toBe(written);

      expect(await waitFor(async () => (await status(token)) === 200, 10_000, 100)).toBe(true);
      const alice = new Client({ name: 'issued', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(`${live.url}/view/research/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      });
      await alice.connect(transport);
      opened.push(alice);
      expect(text((await alice.callTool({ name: 'echo', arguments: { message: 'issued' } })) as CallToolResult)).toBe('Echo: issued');
      // A known token on a route it may not open: 403, not 401.
      expect(await status(token, '/mcp')).toBe(403);
      const listed = JSON.parse((await runCommand(['clients', 'list', '--config', file, '--json'])).stdout) as {
        clients: { name: string; recognised_by: string }[];
      };
      expect(listed.clients).toEqual([expect.objectContaining({ name: 'alice', recognised_by: 'issued token', routes: ['research'], rate: '30/min' })]);

      const rotated = await runCommand(['clients', 'rotate', 'alice', '--config', file, '--json']);
      expect(rotated.code, rotated.stderr).toBe(0);
      const fresh = (JSON.parse(rotated.stdout) as { name: string; token: string }).token;
      expect(fresh).not.toBe(token);
      // The old token is refused at once: its session ends, and it opens nothing new.
      expect(
        await waitFor(
          () =>
            alice.listTools().then(
              () => false,
              () => true,
            ),
          10_000,
        ),
      ).toBe(true);
      expect(await status(token)).toBe(401);
      expect(await status(fresh)).toBe(200);
      expect(readFileSync(file, 'utf8')).toContain('rate: 30/min');

      const removed = await runCommand(['clients', 'remove', 'alice', '--config', file]);
      expect(removed.code, removed.stderr).toBe(0);
      expect(await waitFor(async () => (await status(fresh)) === 401, 10_000, 100)).toBe(true);
      expect(await status('admin-token')).toBe(200);
    } finally {
      await live.close();
    }
  }, 60_000);

  it("in a shell without the agents' variables, clients and stats read the serve section as written and say what is missing", async () => {
    const file = writeConfig({
      mcp_servers: {},
      serve: { audit_log: 'audit.jsonl', clients: { alice: { token: '${ALICE_AGENT_TOKEN}', views: ['default'] }, bob: { token_sha256: 'b'.repeat(64) } } },
    });
    writeFileSync(join(dirname(file), 'audit.jsonl'), '');
    const list = await runCommand(['clients', '--config', file]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/alice\s+token\s+default/);
    expect(list.stdout).toMatch(/bob\s+issued token\s+every route/);
    expect(list.stdout).toContain('ALICE_AGENT_TOKEN is not set');
    const stats = await runCommand(['stats', '--config', file, '--json']);
    expect(stats.code, stats.stderr).toBe(0);
  }, 30_000);
});

describe('the token out of argv', () => {
  it('serve --token-env NAME takes the token from the variable, and ps never shows it', async () => {
    const file = writeConfig({ mcp_servers: { everything: SERVERS.everything }, serve: { exposure: 'direct', groups: ['config'] } });
    const secret = 'from-the-environment-0a1b2c';
    const child = await serveHttpChild(file, ['--token-env', 'TEAM_GATEWAY_TOKEN'], { TEAM_GATEWAY_TOKEN: secret });
    try {
      const cmdline = readFileSync(`/proc/${child.child.pid}/cmdline`, 'utf8');
      expect(cmdline).not.toContain(secret);
      const list = (token: string) => fetch(`${child.url}/views`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
      expect(await list(secret)).toBe(200);
      expect(await list('wrong')).toBe(401);
    } finally {
      await stopChild(child.child);
    }
  }, 30_000);

  it('MCPKIT_TOKEN is read without a flag; --token-env naming an unset variable stops serve with what to do', async () => {
    const file = writeConfig({ mcp_servers: {}, serve: { groups: ['config'] } });
    // In this process, given the environment a process would have (serve reads the token from the
    // environment it is given, process.env in a process): which variable is read is the point here,
    // not the process, whose argv the test above checks (a serve --http process costs 1 CPU-s).
    const live = await serveHttpAsCli(file, { env: cleanEnv({ MCPKIT_TOKEN: 'default-variable-token' }) });
    try {
      expect((await fetch(`${live.url}/views`)).status).toBe(401);
      expect((await fetch(`${live.url}/views`, { headers: { authorization: 'Bearer default-variable-token' } })).status).toBe(200);
    } finally {
      await live.close();
    }
    const r = await runCli(['serve', '--http', '--port', '0', '--config', file, '--token-env', 'NOT_SET_ANYWHERE_42']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--token-env names NOT_SET_ANYWHERE_42, which is not set');
  }, 30_000);
});

describe('mcpkit clients', () => {
  it('lists the clients without their tokens, and says which rule decides a dry run', async () => {
    const list = await runCommand(['clients', '--config', config, '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toContain('alice-token');
    expect((JSON.parse(list.stdout) as { clients: { name: string }[] }).clients.map((c) => c.name)).toEqual(['alice', 'bob', 'dave', 'carol', 'rita']);
    const refused = await runCommand(['clients', '--config', config, '--who', 'alice-token', '--tool', 'everything__get-sum']);
    // "may not call" is the answer a script tests: exit code 1, as grep's for no match.
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stdout).toContain('alice may not call everything__get-sum on /mcp: rule 2 "- *" refuses it.');
    const other = await runCommand(['clients', '--config', config, '--who', 'rita', '--tool', 'echo', '--view', 'research', '--json']);
    expect(JSON.parse(other.stdout)).toMatchObject({ who: 'rita', allowed: true, in_catalog: true });
    expect(other.code).toBe(0);
  }, 30_000);
});

describe("the guide's Teams example (docs/guide/teams.md)", () => {
  /** A shell line's words: quoted ones kept whole (single quotes as written, for ${VAR}), as the README's lines quote them. */
  const words = (line: string) => [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);

  it('its commands, run as shown, write the clients of its config, which is valid as written', async () => {
    const { parse } = await import('yaml');
    const section = readFileSync(join(ROOT, 'docs/guide/teams.md'), 'utf8');
    const yamlBlock = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const shBlock = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
    const example = parse(yamlBlock) as { serve: { clients: Record<string, Record<string, unknown>> } & Record<string, unknown> };
    const servers = { mcp_servers: { github: SERVERS.everything }, tool_views: { research: { servers: ['github'] } } };
    const env = cleanEnv({ RELEASE_AGENT_GITHUB_TOKEN: 'gh-of-the-release-agent' });
    const whole = writeConfig({ ...servers, ...example });
    const validate = await runCommand(['config', 'validate', '--config', whole], { env });
    expect(validate.code, validate.stderr).toBe(0);

    // The commands, from a config without the clients: they write them.
    const { clients: shown, ...rest } = example.serve;
    const file = writeConfig({ ...servers, serve: rest });
    writeFileSync(join(dirname(file), 'audit.jsonl'), '');
    const lines = shBlock
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter((l) => l.startsWith('mcpkit '))
      .map((l) => words(l).slice(1));
    const ran = [];
    for (const args of lines) ran.push({ args, ...(await runCommand([...args, '--config', file], { env })) });
    const [addResearch, addRelease, set, list, dry, dryArgs, install, rotate, stats] = ran;
    expect(ran).toHaveLength(9);
    for (const added of [addResearch!, addRelease!]) expect(added.stdout.trim(), added.stderr).toMatch(/^mcpk_[A-Za-z0-9_-]{43}$/);
    expect(set!.code, set!.stderr).toBe(0);
    const written = (parse(readFileSync(file, 'utf8')) as typeof example).serve.clients;
    // Digests and times differ from run to run; that each is written is checked below.
    const changing = ['token_sha256', 'token_expires', 'previous_token_sha256', 'previous_token_until'];
    const withoutSecrets = (c: Record<string, unknown>) => Object.fromEntries(Object.entries(c).filter(([k]) => !changing.includes(k)));
    expect(Object.fromEntries(Object.entries(written).map(([n, c]) => [n, withoutSecrets(c)]))).toEqual(
      Object.fromEntries(Object.entries(shown).map(([n, c]) => [n, withoutSecrets(c)])),
    );
    expect(list!.code, list!.stderr).toBe(0);
    expect(list!.stdout).toMatch(/research-agent\s+issued token\s+research/);
    expect(dry!.code, dry!.stderr).toBe(1); // may not call
    expect(dry!.stdout).toContain('release-agent may not call github__delete_repo on /mcp: rule 1 "- github__delete_*" refuses it');
    // The stand-in github here has no create_issue: the dry run with arguments says so, and which rule let the name through.
    expect(dryArgs!.code, dryArgs!.stderr).toBe(1);
    expect(dryArgs!.stdout).toContain(
      'release-agent may not call github__create_issue on /mcp: rule 2 "+ github__*" allows it; but the route serves no tool of this name',
    );
    expect(install!.code, install!.stderr).toBe(0);
    expect(JSON.parse(install!.stdout)).toEqual({
      mcpServers: {
        'mcpkit-research': { type: 'http', url: 'https://gateway.example.com/view/research/mcp', headers: { Authorization: 'Bearer ${RESEARCH_AGENT_TOKEN}' } },
      },
    });
    expect(rotate!.code, rotate!.stderr).toBe(0);
    expect(rotate!.stdout.trim()).not.toBe(addResearch!.stdout.trim());
    expect(Object.keys(written['research-agent']!)).toEqual(Object.keys(shown['research-agent']!));
    expect(Date.parse(written['research-agent']!.token_expires as string)).toBeGreaterThan(Date.now() + 89 * 86_400_000);
    expect(Date.parse(written['research-agent']!.previous_token_until as string)).toBeGreaterThan(Date.now());
    expect(stats!.code, stats!.stderr).toBe(0);
  }, 60_000);
});
