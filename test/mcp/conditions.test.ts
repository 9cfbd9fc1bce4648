import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCommand, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, serveStdioInProcess, type InProcessServe } from '../helpers/in-process.js';
import { modernRpc } from '../helpers/modern-rpc.js';
import { SERVERS } from '../helpers/upstreams.js';

/**
 * Conditions on arguments (issue 69) through every path a call can take, with the real
 * server-filesystem: a view limited to one folder refuses reads outside it (`..`, a symlink's
 * name, absolute and relative forms) over stdio and HTTP, in both eras, on the hot path, through
 * the call meta-tool, a composite's step, code mode's inner calls, a task-capable request and the
 * terminal's call; a client's condition refuses what is outside its list while another is served.
 */

const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };
const TASKS_CAPABILITIES = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

let root: string;
let docs: string;
let config: string;
let http: InProcessServe;
const clients: Client[] = [];

/** Each a read the docs view must refuse, and why. */
let outside: [string, string][];

beforeAll(async () => {
  root = tempDir();
  docs = join(root, 'docs');
  mkdirSync(docs);
  writeFileSync(join(docs, 'a.txt'), 'inside');
  writeFileSync(join(root, 'secret.txt'), 'SECRET');
  symlinkSync(join(docs, 'a.txt'), join(root, 'link.txt')); // a name outside, whatever it points to
  outside = [
    ['..', `${docs}/../secret.txt`],
    ['a symlink named outside', join(root, 'link.txt')],
    ['absolute', join(root, 'secret.txt')],
    ['relative', 'docs/a.txt'],
    ['home', '~/secret.txt'],
    ['a prefix of the folder', `${docs}X/a.txt`],
  ];
  const when = `under(args.path, "${docs}")`;
  const conditions = { read_text_file: { when, message: 'Only files under the docs folder.' } };
  config = join(root, 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { files: SERVERS.filesystem(root), everything: SERVERS.everything },
      composite_tools: {
        peek: {
          inputs: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          chain: [{ tool: 'files.read_text_file', args: { path: '{inputs.path}' } }],
        },
      },
      tool_views: {
        docs: { servers: ['files'], tools: ['peek'], exposure: 'direct', conditions },
        search: { servers: ['files'], exposure: 'search', conditions },
        code: { servers: ['files'], exposure: 'code', conditions },
      },
      serve: {
        clients: {
          reader: { token: 'tok-reader' },
          'release-bot': {
            token: 'tok-bot',
            conditions: { everything__echo: { when: 'args.message in ["acme/app", "acme/docs"]', message: 'Issues go to acme/app or acme/docs.' } },
          },
        },
      },
    }),
  );
  http = await serveHttpInProcess(config, { env: cleanEnv(), exposure: undefined });
});
afterAll(async () => http?.close());
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

async function overHttp(path: string, token: string, era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client({ name: 'conditions-e2e', version: '1' }, era === 'modern' ? MODERN : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

/** One stdio serve for each view and era, shared by the tests that read through it (closed after the file). */
const stdioServes = new Map<string, Promise<Client>>();
afterAll(async () => {
  const served = await Promise.allSettled(stdioServes.values());
  stdioServes.clear();
  await Promise.allSettled(served.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
});

function overStdio(view: string, era: 'legacy' | 'modern'): Promise<Client> {
  const key = `${view} ${era}`;
  if (!stdioServes.has(key)) {
    const served = serveStdioInProcess({
      config,
      flags: { exposure: undefined, view },
      ...(era === 'modern' ? { client: new Client({ name: 'conditions-e2e', version: '1' }, MODERN) } : {}),
    }).then((s) => s.client);
    stdioServes.set(key, served);
  }
  return stdioServes.get(key)!;
}

const text = (r: unknown) => JSON.stringify(r);
const refusedByCondition = (r: CallToolResult) => {
  expect(r.isError, text(r)).toBe(true);
  expect(text(r)).toContain('CONDITION_FAILED');
  expect(text(r)).toContain('tool_views.');
  expect(text(r)).not.toContain('SECRET');
};

/** Reads each path in turn, one answer a path. */
type Caller = (paths: readonly string[]) => Promise<CallToolResult[]>;

const eachAlone =
  (call: (path: string) => Promise<unknown>): Caller =>
  async (paths) => {
    const answers: CallToolResult[] = [];
    for (const path of paths) answers.push((await call(path)) as CallToolResult);
    return answers;
  };

/** Each path's way to read files in a docs view. */
function paths(client: Client, view: 'docs' | 'search' | 'code'): Caller {
  if (view === 'search') return eachAlone((path) => client.callTool({ name: 'search_call_tool', arguments: { name: 'read_text_file', arguments: { path } } }));
  if (view === 'code')
    // One run makes every read, each an inner call of its own (a run is a sandbox's start, the
    // costly part): what each read answered, or the code and message its refusal threw.
    return async (paths) => {
      const code = `const out = [];
        for (const path of ${JSON.stringify(paths)}) {
          try { out.push({ answer: await tools.files.read_text_file({ path }) }); } catch (e) { out.push({ refused: { code: e.code, message: e.message } }); }
        }
        return out;`;
      const r = (await client.callTool({ name: 'code_run_code', arguments: { code } })) as CallToolResult;
      const results = (r.structuredContent as { result?: { answer?: unknown; refused?: { code?: string } }[] } | undefined)?.result;
      expect(results, text(r)).toHaveLength(paths.length);
      // A script's refused call rejects with the code: the run itself succeeds, as the script caught it.
      return results!.map((one) =>
        one.refused?.code ? { isError: true, content: [{ type: 'text', text: text(one.refused) }] } : { content: [{ type: 'text', text: text(one.answer) }] },
      );
    };
  return eachAlone((path) => client.callTool({ name: 'read_text_file', arguments: { path } }));
}

async function holdsTheLine(call: Caller): Promise<void> {
  // Twice each: the first call finds the catalog, the second takes the hot path where there is one.
  for (let round = 0; round < 2; round++) {
    const [inside, normalized, ...refused] = await call([join(docs, 'a.txt'), `${docs}/./sub/../a.txt`, ...outside.map(([, path]) => path)]);
    expect(text(inside)).toContain('inside');
    expect(text(normalized)).toContain('inside');
    expect(refused).toHaveLength(outside.length);
    for (const r of refused) refusedByCondition(r!);
  }
}

describe('a view limited to one folder', () => {
  it.each([
    ['stdio', 'legacy', 'docs'],
    ['stdio', 'modern', 'docs'],
    ['http', 'legacy', 'docs'],
    ['http', 'modern', 'docs'],
    ['stdio', 'legacy', 'search'],
    ['http', 'modern', 'search'],
    ['stdio', 'legacy', 'code'],
    ['http', 'modern', 'code'],
  ] as const)('%s, %s era, view %s: refuses reads outside it', async (transport, era, view) => {
    const client = transport === 'stdio' ? await overStdio(view, era) : await overHttp(`/view/${view}/mcp`, 'tok-reader', era);
    await holdsTheLine(paths(client, view));
  });

  it('refuses a composite step outside it, and runs one inside', async () => {
    const client = await overHttp('/view/docs/mcp', 'tok-reader', 'legacy');
    expect(text(await client.callTool({ name: 'peek', arguments: { path: join(docs, 'a.txt') } }))).toContain('inside');
    for (const [, path] of outside) {
      const r = (await client.callTool({ name: 'peek', arguments: { path } })) as CallToolResult;
      // A composite reports its failed step by the step's message.
      expect(r.isError, text(r)).toBe(true);
      expect(text(r)).toContain('refused by the condition \\"read_text_file\\" of tool_views.docs.conditions');
      expect(text(r)).not.toContain('SECRET');
    }
  });

  it('a 2026-07-28 request that declares tasks is refused the same', async () => {
    const rpc = (path: string) =>
      modernRpc(
        `${http.url}/view/docs/mcp`,
        'tools/call',
        { name: 'read_text_file', arguments: { path } },
        { token: 'tok-reader', capabilities: TASKS_CAPABILITIES },
      );
    expect(text((await rpc(join(docs, 'a.txt'))).result)).toContain('inside');
    for (const [, path] of outside) {
      const answer = await rpc(path);
      expect(answer.result, text(answer)).toMatchObject({ isError: true });
      expect(text(answer.result)).toContain('CONDITION_FAILED');
    }
  });

  it('the describe tool shows the condition, by its message', async () => {
    const client = await overStdio('search', 'legacy');
    const described = await client.callTool({ name: 'search_describe_tool', arguments: { name: 'read_text_file' } });
    expect(text(described)).toContain('Only files under the docs folder.');
  });

  it("code mode's declarations show it too", async () => {
    const client = await overStdio('code', 'legacy');
    const described = await client
      .callTool({ name: 'code_describe_tools', arguments: { name: 'read_text_file' } })
      .catch(async () => client.callTool({ name: 'code_search_tools', arguments: { query: 'read text file' } }));
    expect(text(described)).toContain('Only files under the docs folder.');
  });

  it("the terminal's code run in the view is refused the same, the code named", async () => {
    const env = cleanEnv({ MCPKIT_CONFIG: config, MCPKIT_NO_DAEMON: '1' });
    const script = join(root, 'read.js');
    // One run makes both reads, each an inner call of its own with its own answer (a terminal run
    // starts the view's servers, the costly part): what each read answered, or its refusal.
    const read = (path: string) =>
      `await (async () => { try { return { answer: await tools.files.read_text_file({ path: ${JSON.stringify(path)} }) }; } catch (e) { return { refused: { code: e.code, message: e.message } }; } })()`;
    writeFileSync(script, `return { inside: ${read(join(docs, 'a.txt'))}, outside: ${read(`${docs}/../secret.txt`)} };`);
    const ran = await runCommand(['code', 'run', script, '--view', 'docs', '--json'], { env });
    expect(ran.code, ran.stderr).toBe(0);
    const { inside, outside } = (
      JSON.parse(ran.stdout) as { result: Record<'inside' | 'outside', { answer?: unknown; refused?: { code?: string; message?: string } }> }
    ).result;
    expect(inside.refused, ran.stdout).toBeUndefined();
    expect(text(inside.answer)).toContain('inside');
    expect(outside.answer, ran.stdout).toBeUndefined();
    expect(outside.refused?.code).toBe('CONDITION_FAILED');
    expect(outside.refused?.message).toContain('tool_views.docs.conditions');
    expect(ran.stdout + ran.stderr).not.toContain('SECRET');
  });
});

describe("a client's conditions", () => {
  it.each(['legacy', 'modern'] as const)('%s: refuse a repository outside its list, while another client is served', async (era) => {
    const bot = await overHttp('/mcp', 'tok-bot', era);
    const other = await overHttp('/mcp', 'tok-reader', era);
    for (let round = 0; round < 2; round++) {
      expect(text(await bot.callTool({ name: 'everything__echo', arguments: { message: 'acme/app' } }))).toContain('Echo: acme/app');
      const refused = (await bot.callTool({ name: 'everything__echo', arguments: { message: 'evil/app' } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain('CONDITION_FAILED');
      expect(text(refused)).toContain('serve.clients.release-bot.conditions');
      expect(text(refused)).toContain('Issues go to acme/app or acme/docs.');
      expect(text(refused)).not.toContain('evil/app');
      expect(text(await other.callTool({ name: 'everything__echo', arguments: { message: 'evil/app' } }))).toContain('Echo: evil/app');
    }
  });
});

describe('a condition that does not compile', () => {
  it.each([
    ['a syntax error', 'args.message ==', 'column 16: Unexpected token'],
    ['a type error', 'tool + 1 == 2', 'column 1: no such overload'],
    ['not true or false', 'args.message + 1', 'column 1: the expression gives int, not true or false'],
  ])('%s: config validate refuses it, and a reload keeps the last good view', async (_what, bad, said) => {
    const dir = tempDir();
    const file = join(dir, 'mcpkit.yaml');
    const write = (when: string) =>
      writeFileSync(
        file,
        JSON.stringify({ mcp_servers: { everything: SERVERS.everything }, tool_views: { v: { servers: ['everything'], conditions: { echo: when } } } }),
      );
    write('args.message == "ok"');
    const served = await serveHttpInProcess(file, { env: cleanEnv() });
    const client = new Client({ name: 'conditions-reload', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/view/v/mcp`)));
    clients.push(client);
    const refusedNow = async () => text(await client.callTool({ name: 'echo', arguments: { message: 'no' } }));
    expect(await refusedNow()).toContain('CONDITION_FAILED');

    write(bad);
    const validated = await runCommand(['config', 'validate', '--config', file], { env: cleanEnv() });
    expect(validated.code).toBe(1);
    expect(validated.stdout + validated.stderr).toContain(`tool_views.v.conditions.echo: ${said}`);

    await served.runtime.configs.live.reload('test');
    expect(served.lines.join('\n')).toContain(`tool_views.v.conditions.echo: ${said}`);
    expect(served.lines.join('\n')).toMatch(/the last good one stays in force/);
    expect(await refusedNow()).toContain('CONDITION_FAILED');
    expect(text(await client.callTool({ name: 'echo', arguments: { message: 'ok' } }))).toContain('Echo: ok');
    await served.close();
  });
});
