import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Client } from '@modelcontextprotocol/client';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, cleanEnv, tempDir, runCommand } from '../helpers/cli.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';
import { serveStdioInProcess } from '../helpers/in-process.js';

/**
 * What `serve` costs an agent by default, since every token of tools/list is paid on every turn. tools/list is at most 4,000 tokens (bytes/4)
 * with no config and with three reference servers, every tool stays reachable through the search
 * meta-tools, and the meta-tools find the right tool for task phrasings (the evaluation set).
 */
const tokensOf = (tools: Tool[]) => Math.ceil(Buffer.byteLength(JSON.stringify({ tools })) / 4);

/** serve ARGS over stdio, in this process (helpers/in-process.ts), in a folder of its own. */
async function connect(args: string[], cwd = tempDir()): Promise<Client> {
  return (await serveStdioInProcess({ argv: args, cwd, name: 'economy' })).client;
}

const structured = <T>(r: unknown) => (r as CallToolResult).structuredContent as T;

function threeServers(extra: object = {}): string {
  const files = tempDir();
  return writeConfig({
    mcp_servers: {
      everything: SERVERS.everything,
      memory: { ...SERVERS.memory, env: { MEMORY_FILE_PATH: join(files, 'memory.json') } },
      filesystem: SERVERS.filesystem(files),
    },
    ...extra,
  });
}

/**
 * Three reference servers and no views, served twice: --exposure direct for the catalog (closed
 * once listed), and by default for the meta-tools. The budget test and the evaluation read both and
 * change neither (searches, descriptions, an echo), so they share one pair: six upstream starts, not twelve.
 */
let threeServed: Promise<{ catalog: Tool[]; client: Client }> | undefined;
function servedThree(): Promise<{ catalog: Tool[]; client: Client }> {
  return (threeServed ??= (async () => {
    const config = threeServers();
    const direct = await connect(['--config', config, '--exposure', 'direct']);
    let catalog: Tool[];
    try {
      catalog = (await direct.listTools()).tools;
    } finally {
      await direct.close();
    }
    return { catalog, client: await connect(['--config', config]) };
  })());
}
afterAll(async () => {
  await (await threeServed?.catch(() => undefined))?.client.close();
});

describe('serve by default fits a token budget', () => {
  it('with no config: tools/list is at most 4,000 tokens, search meta-tools and the most used read tools', async () => {
    const client = await connect([]);
    try {
      const { tools } = await client.listTools();
      expect(tokensOf(tools)).toBeLessThanOrEqual(4000);
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['mcpkit_search_tools', 'mcpkit_describe_tool', 'mcpkit_call_tool', 'search', 'open_file']));
      // A writer is never kept direct: it is found through search.
      expect(names).not.toContain('server_add');
      const search = tools.find((t) => t.name === 'mcpkit_search_tools')!;
      expect(search.description).toMatch(/mcpkit's own .*retrieve \(\d+: reading and searching local docs and code\).*arango \(\d+: ArangoDB/);
      // A tool behind search is called through the meta-tool, or by its name: the listing is about context, not access.
      const called = structured<{ path: string }>(await client.callTool({ name: 'mcpkit_call_tool', arguments: { name: 'config_path', arguments: {} } }));
      expect(called.path).toMatch(/config\.yaml$/);
      expect(structured<{ path: string }>(await client.callTool({ name: 'config_path', arguments: {} }))).toEqual(called);
      await expect(client.callTool({ name: 'config_pat', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('config_path'),
      });
    } finally {
      await client.close();
    }
  });

  it('with three reference servers and no views: at most 4,000 tokens, and every tool is reachable through the meta-tools', async () => {
    const { catalog, client } = await servedThree();
    expect(catalog.length).toBeGreaterThanOrEqual(100);
    expect(tokensOf(catalog)).toBeGreaterThan(4000);
    const { tools } = await client.listTools();
    expect(tokensOf(tools)).toBeLessThanOrEqual(4000);
    const search = tools.find((t) => t.name === 'mcpkit_search_tools')!;
    for (const server of ['everything', 'memory', 'filesystem']) expect(search.description).toContain(`server "${server}"`);
    expect(search.description).toContain(`${catalog.length} tools`);
    for (const tool of catalog) {
      const described = structured<Tool>(await client.callTool({ name: 'mcpkit_describe_tool', arguments: { name: tool.name } }));
      expect(described, tool.name).toEqual(tool);
      // Searching for a tool by its own name's words finds it.
      const found = structured<{ results: { name: string }[] }>(
        await client.callTool({ name: 'mcpkit_search_tools', arguments: { query: tool.name.replace(/[_-]+/g, ' '), limit: 5 } }),
      );
      expect(
        found.results.map((r) => r.name),
        tool.name,
      ).toContain(tool.name);
    }
    const echoed = (await client.callTool({
      name: 'mcpkit_call_tool',
      arguments: { name: 'everything__echo', arguments: { message: 'behind search' } },
    })) as CallToolResult;
    expect(echoed.content).toEqual([{ type: 'text', text: 'Echo: behind search' }]);
  });

  it('a view that fits its budget lists every tool; a smaller budget, --exposure and pins change that', async () => {
    const config = threeServers({
      serve: { pin: ['everything__echo'] },
      tool_views: {
        mem: { servers: ['memory'] },
        // In a one-server view tools keep the server's own names.
        tight: { servers: ['memory'], token_budget: 1000, pin: ['read_graph'] },
      },
    });
    const all = await connect(['--config', config, '--view', 'mem']);
    try {
      expect((await all.listTools()).tools.map((t) => t.name)).toHaveLength(9);
    } finally {
      await all.close();
    }
    const tight = await connect(['--config', config, '--view', 'tight']);
    try {
      const names = (await tight.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(['read_graph', 'tight_search_tools', 'tight_describe_tool', 'tight_call_tool']);
      const graph = (await tight.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
      expect(graph.isError).toBeFalsy();
    } finally {
      await tight.close();
    }
    const forced = await connect(['--config', config, '--view', 'tight', '--exposure', 'direct']);
    try {
      expect((await forced.listTools()).tools).toHaveLength(9);
    } finally {
      await forced.close();
    }
    const pinned = await connect(['--config', config]);
    try {
      expect((await pinned.listTools()).tools[0]!.name).toBe('everything__echo');
    } finally {
      await pinned.close();
    }
  });

  it('view tools shows the budget, the cost and what is direct', async () => {
    const config = threeServers({ tool_views: { tight: { servers: ['memory'], token_budget: 1000, pin: ['read_graph', 'memory__read_graph'] } } });
    const env = cleanEnv();
    const r = await runCommand(['view', 'tools', 'tight', '--config', config, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      exposure: 'auto',
      listing: 'search',
      token_budget: 1000,
      direct: ['read_graph'],
      unknown_pins: [{ pin: 'memory__read_graph', similar: ['read_graph'] }],
      catalog_size: 9,
    });
    expect(out.tokens_estimate).toBeLessThan(out.catalog_tokens);
    const human = await runCommand(['view', 'tools', 'tight', '--config', config], { env });
    expect(human.stdout).toMatch(
      /exposure auto: 4 tool\(s\) listed \(1 direct, the rest of the 9 through search\); tools\/list ≈ \d+ tokens, the whole catalog \d+; budget 1000/,
    );
    expect(human.stdout).toContain('! pin "memory__read_graph" names no tool of the view (did you mean read_graph?)');
    const whole = JSON.parse((await runCommand(['view', 'tools', '--config', config, '--json'], { env })).stdout);
    expect(whole).toMatchObject({ view: null, listing: 'search', token_budget: 4000 });
    expect(whole.tokens_estimate).toBeLessThanOrEqual(4000);
  });

  it('serve refuses a bad --exposure, --token-budget or --groups with exit 2 and the values it knows', async () => {
    for (const [args, words] of [
      [['--exposure', 'some'], 'auto, direct, search'],
      [['--token-budget', '12x'], '--token-budget must be a whole number'],
      [['--groups', 'retrieve,nope'], 'Known groups: config, server'],
    ] as const) {
      const r = await runCommand(['serve', ...args], { env: cleanEnv(), input: '' });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(words);
    }
    const config = writeConfig({ serve: { groups: ['retrieval'] } });
    const bad = await runCommand(['serve', '--config', config], { env: cleanEnv(), input: '' });
    expect(bad.stderr).toContain('serve.groups names unknown group(s) "retrieval"');
  });
});

describe("serve --groups chooses mcpkit's own groups, as toolsets", () => {
  it('--groups retrieve,registry serves those groups only, and --read-only narrows them further', async () => {
    const client = await connect(['--groups', 'retrieve,registry', '--exposure', 'direct']);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(
        [
          'find_files',
          'get_server',
          'get_snippet',
          'list_dir',
          'list_servers',
          'list_versions',
          'open_file',
          'registry_add',
          'registry_outdated',
          'registry_update',
          'search',
          'smart_search',
        ].sort(),
      );
    } finally {
      await client.close();
    }
    const reading = await connect(['--groups', 'registry', '--read-only']);
    try {
      expect((await reading.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_server', 'list_servers', 'list_versions', 'registry_outdated']);
    } finally {
      await reading.close();
    }
  });

  it('serve.groups in the config does the same, and tools lists what serve offers', async () => {
    const config = writeConfig({ serve: { groups: ['config'] } });
    const client = await connect(['--config', config]);
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['config_path', 'config_schema', 'config_show', 'config_validate']);
    } finally {
      await client.close();
    }
    const listed = JSON.parse((await runCommand(['tools', '--local', '--json', '--config', config], { env: cleanEnv() })).stdout) as { group: string }[];
    expect(new Set(listed.map((t) => t.group))).toEqual(new Set(['config']));
  });
});

interface EvalCase {
  set: 'tune' | 'held-out';
  query: string;
  expect: string[];
}

describe('the search meta-tools find the right tool (test/fixtures/tool-search-eval.json)', () => {
  const cases = (JSON.parse(readFileSync(join(ROOT, 'test/fixtures/tool-search-eval.json'), 'utf8')) as { cases: EvalCase[] }).cases;
  let client: Client;
  let catalog: Set<string>;

  beforeAll(async () => {
    const served = await servedThree();
    catalog = new Set(served.catalog.map((t) => t.name));
    client = served.client;
  }, 60_000);

  it('has at least 60 phrasings over a catalog of at least 100 tools, each naming tools that exist', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(catalog.size).toBeGreaterThanOrEqual(100);
    for (const c of cases) for (const name of c.expect) expect(catalog.has(name), `${c.query}: ${name}`).toBe(true);
  });

  it('puts the right tool in the top 5 for at least 90% of the phrasings', { timeout: 60_000 }, async () => {
    const tally = { tune: { n: 0, top1: 0, top5: 0 }, 'held-out': { n: 0, top1: 0, top5: 0 } };
    const misses: string[] = [];
    for (const c of cases) {
      const found = structured<{ results: { name: string }[] }>(
        await client.callTool({ name: 'mcpkit_search_tools', arguments: { query: c.query, limit: 5 } }),
      );
      const names = found.results.map((r) => r.name);
      const t = tally[c.set];
      t.n++;
      if (c.expect.includes(names[0]!)) t.top1++;
      if (names.some((n) => c.expect.includes(n))) t.top5++;
      else misses.push(`  "${c.query}" gave ${names.join(', ')}; wanted ${c.expect.join(' or ')}`);
    }
    const pct = (k: number, n: number) => `${((100 * k) / n).toFixed(1)}%`;
    const all = { n: tally.tune.n + tally['held-out'].n, top1: tally.tune.top1 + tally['held-out'].top1, top5: tally.tune.top5 + tally['held-out'].top5 };
    console.log(
      [
        'tool search evaluation (top-1 / top-5):',
        ...Object.entries({ ...tally, all }).map(
          ([set, t]) => `  ${set.padEnd(8)} ${String(t.n).padStart(3)} phrasings  ${pct(t.top1, t.n)} / ${pct(t.top5, t.n)}`,
        ),
        ...(misses.length ? ['missed:', ...misses] : []),
      ].join('\n'),
    );
    expect(all.top5 / all.n, misses.join('\n')).toBeGreaterThanOrEqual(0.9);
  });
});
