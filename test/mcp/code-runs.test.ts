import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCommand, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, serveStdioInProcess, type InProcessServe } from '../helpers/in-process.js';
import { SERVERS, waitFor } from '../helpers/upstreams.js';

/**
 * One budget for code mode (issue 66): a script cannot start a run, by any spelling or path
 * (code/nested-runs.ts), and serve caps the runs in flight across all clients and per client
 * (code/run-budget.ts), refusing one more at once with RATE_LIMITED and retry_after_ms. Real
 * serve, real upstreams (server-everything, and mcpkit itself as a chained upstream gateway).
 */

let dir: string;
let config: string;
let http: InProcessServe;
const clients: Client[] = [];

beforeAll(async () => {
  dir = tempDir();
  config = join(dir, 'mcpkit.yaml');
  // mcpkit itself as an upstream, in code mode: its run tool is published here as inner__mcpkit_run_code.
  const inner = join(dir, 'inner.yaml');
  writeFileSync(inner, JSON.stringify({ mcp_servers: {}, serve: { exposure: 'code' } }));
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: {
        everything: SERVERS.everything,
        inner: { command: process.execPath, args: [BIN, 'serve', '--config', inner, '--exposure', 'code'] },
      },
      composite_tools: {
        fanout: { description: 'Runs a script upstream', parallel: { a: { tool: 'inner.mcpkit_run_code', args: { code: "return 'nested ran'" } } } },
      },
      tool_views: { code: { servers: ['everything'], exposure: 'code' } },
      serve: {
        exposure: 'code',
        code: { timeout_ms: 20_000, max_runs: 2, max_runs_per_client: 1 },
        clients: { alice: { token: 'tok-alice' }, bob: { token: 'tok-bob' }, carol: { token: 'tok-carol' } },
      },
    }),
  );
  http = await serveHttpInProcess(config, { env: cleanEnv(), exposure: undefined });
});
afterAll(async () => {
  await http?.close();
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

async function overHttp(token: string, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'code-runs', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

type Outcome = { result?: unknown; error?: { code: string; message: string; details?: Record<string, unknown> } };
const run = (client: Client, code: string, options: { tool?: string; signal?: AbortSignal } = {}) =>
  client.callTool(
    { name: options.tool ?? 'mcpkit_run_code', arguments: { code } },
    options.signal ? { signal: options.signal } : undefined,
  ) as Promise<CallToolResult>;
const outcomeOf = (r: CallToolResult) => r.structuredContent as Outcome;

/** Each way a script could name a run: the script's call, and what the run it would start returns. */
const NESTED = "return 'nested ran'";
const SPELLINGS: [string, string][] = [
  ['its own view, as published', `tools.mcpkit.mcpkit_run_code({ code: ${JSON.stringify(NESTED)} })`],
  ['upper case', `tools.mcpkit.MCPKIT_RUN_CODE({ code: ${JSON.stringify(NESTED)} })`],
  ['other separators', `tools.mcpkit['Mcpkit-Run.Code']({ code: ${JSON.stringify(NESTED)} })`],
  ['camel case', `tools.mcpkit.mcpkitRunCode({ code: ${JSON.stringify(NESTED)} })`],
  ['full-width letters', `tools.mcpkit['ｍｃｐｋｉｔ＿ｒｕｎ＿ｃｏｄｅ']({ code: ${JSON.stringify(NESTED)} })`],
  ['under another group', `tools.everything.mcpkit_run_code({ code: ${JSON.stringify(NESTED)} })`],
  ["another view's", `tools.mcpkit.code_run_code({ code: ${JSON.stringify(NESTED)} })`],
  ["mcpkit's own code_run", `tools.mcpkit.code_run({ code: ${JSON.stringify(NESTED)} })`],
  ['through a call_tool meta-tool', `tools.mcpkit.mcpkit_call_tool({ name: 'mcpkit_run_code', arguments: { code: ${JSON.stringify(NESTED)} } })`],
  ["an upstream gateway's", `tools.inner.mcpkit_run_code({ code: ${JSON.stringify(NESTED)} })`],
];

describe('a script cannot start a run, by any spelling', () => {
  // One stdio serve for the spellings, one run after another (a serve each started its upstreams,
  // mcpkit itself among them, eleven times): each answer is its run's alone, and a run let through
  // would say so in that answer.
  let stdio: Promise<Client> | undefined;
  const sharedStdio = () => (stdio ??= serveStdioInProcess({ config, flags: { exposure: undefined } }).then((s) => s.client));
  afterAll(async () => {
    await (await stdio?.catch(() => undefined))?.close();
  });

  it.each(SPELLINGS)('%s: refused FORBIDDEN inside the script, and nothing ran', async (_how, call) => {
    const client = await sharedStdio();
    const answer = await run(client, `try { return { ran: await ${call} }; } catch (e) { return { code: e.code, message: e.message }; }`);
    expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
    expect(outcomeOf(answer).result).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/A script cannot start a run/) });
    expect(JSON.stringify(answer)).not.toContain('nested ran');
  });

  it("a composite whose step is an upstream gateway's run: the step is refused inside a script", async () => {
    const client = await sharedStdio();
    const answer = await run(client, `return await tools.mcpkit.fanout({});`);
    expect(JSON.stringify(outcomeOf(answer))).toMatch(/A script cannot start a run/);
    expect(JSON.stringify(answer)).not.toContain('nested ran');
  });

  it('a 3-deep fan-out of endless runs is refused at once: the outer run ends FORBIDDEN, no run is left in flight', async () => {
    const client = await overHttp('tok-alice');
    const leaf = 'for (;;) {}';
    const level = (inner: string) => `await Promise.all(Array.from({ length: 8 }, () => tools.mcpkit.mcpkit_run_code({ code: ${JSON.stringify(inner)} })));`;
    const answer = await run(client, level(level(leaf)));
    expect(answer.isError).toBe(true);
    expect(outcomeOf(answer).error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/A script cannot start a run/) });
    // The run's place is given back: alice (max_runs_per_client: 1) runs again at once.
    expect(outcomeOf(await run(client, 'return 1')).result).toBe(1);
  });

  it('mcpkit code run in a terminal: its script cannot start a run either', async () => {
    const r = await runCommand(['code', 'run', '-', '--config', config, '--json'], {
      input: `try { return await tools.mcpkit.code_run({ code: 'return 1' }); } catch (e) { return e.code; }`,
      env: cleanEnv({ MCPKIT_NO_DAEMON: '1' }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { result: unknown }).result).toBe('FORBIDDEN');
  });
});

describe("serve's budget of runs: in all (max_runs) and per client (max_runs_per_client)", () => {
  /** A run that holds its place until it is cancelled (its timeout is 20 s). */
  const HOLD = 'await new Promise(() => {}); return 1';

  /** Starts a run that holds its place, and waits until serve counts it (a second run of the client is then refused). */
  async function holding(client: Client): Promise<AbortController> {
    const controller = new AbortController();
    void run(client, HOLD, { signal: controller.signal }).catch(() => undefined);
    const counted = await waitFor(async () => outcomeOf(await run(client, 'return 1')).error?.code === 'RATE_LIMITED', 10_000, 100);
    expect(counted, 'the held run was never counted').toBe(true);
    return controller;
  }

  it('a client over its cap is refused at once with RATE_LIMITED and retry_after_ms, while other clients run; over max_runs, everyone is', async () => {
    const alice = await overHttp('tok-alice');
    const bob = await overHttp('tok-bob');
    const carol = await overHttp('tok-carol');
    const held = [await holding(alice)];
    try {
      const second = outcomeOf(await run(alice, 'return 1'));
      expect(second.error).toMatchObject({
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/client alice has 1 runs in flight \(serve\.code\.max_runs_per_client: 1\)/),
        details: { client: 'alice', max_runs_per_client: 1, retry_after_ms: expect.any(Number) },
      });
      expect(second.error!.details!.retry_after_ms).toBeGreaterThan(0);
      // Another client runs meanwhile.
      expect(outcomeOf(await run(bob, 'return 2')).result).toBe(2);
      // bob holds the second place of max_runs: 2; carol, under her own cap, is refused by serve's.
      held.push(await holding(bob));
      const third = outcomeOf(await run(carol, 'return 3'));
      expect(third.error).toMatchObject({
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/serve has 2 runs in flight \(serve\.code\.max_runs: 2\)/),
        details: { max_runs: 2, retry_after_ms: expect.any(Number) },
      });
    } finally {
      held.forEach((c) => c.abort());
    }
    // The places come back when the runs end: carol runs.
    expect(await waitFor(async () => outcomeOf(await run(carol, 'return 3')).result === 3, 10_000, 100)).toBe(true);
  });

  it('an unnamed client (stdio) has the same per-client cap', async () => {
    const { client } = await serveStdioInProcess({ config, flags: { exposure: undefined } });
    clients.push(client);
    const held = await holding(client);
    try {
      expect(outcomeOf(await run(client, 'return 1')).error).toMatchObject({ code: 'RATE_LIMITED', details: { client: 'stdio', max_runs_per_client: 1 } });
    } finally {
      held.abort();
    }
  });
});
