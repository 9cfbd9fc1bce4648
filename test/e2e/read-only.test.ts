import { type Client, ProtocolError } from '@modelcontextprotocol/client';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allTools } from '../../src/tools/index.js';
import { configSchema } from '../../src/config/schema/schema.js';
import { cleanEnv } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * The read-only policy, applied in one place from annotations: under `serve --read-only` (and in
 * a view with `read_only: true`) no tool with readOnlyHint: false is listed or callable, of
 * mcpkit's own or of upstreams, except a writer that enforces read-only itself (arango_query),
 * which is published as read-only. Nothing is written to the environment.
 */
const config = writeConfig({
  mcp_servers: { everything: SERVERS.everythingProcess, memory: SERVERS.memory },
  tool_views: { ro: { servers: ['everything'], groups: ['server', 'view', 'registry'], read_only: true } },
});

async function connect(args: string[]): Promise<Client> {
  // serve in this process (helpers/in-process.ts). Every tool listed: these tests are about which
  // tools are served, not how they are listed. Admin tools on, so that switch_tenant_id (a writer)
  // would be offered but for the policy.
  const env = cleanEnv({ MCPKIT_CONFIG: config, SHOW_ADMIN_TOOLS: 'true' });
  return (await serveStdioInProcess({ argv: ['--exposure', 'direct', ...args], env, name: 'read-only-e2e' })).client;
}

async function unknownTool(client: Client, name: string): Promise<boolean> {
  try {
    await client.callTool({ name, arguments: {} });
    return false;
  } catch (error) {
    return error instanceof ProtocolError && error.code === -32602;
  }
}

describe('serve --read-only', () => {
  let client: Client;
  let tools: Tool[];

  beforeAll(async () => {
    client = await connect(['--read-only']);
    ({ tools } = await client.listTools());
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists only tools that declare readOnlyHint: true', () => {
    expect(tools.length).toBeGreaterThan(20);
    for (const tool of tools) expect([tool.name, tool.annotations?.readOnlyHint]).toEqual([tool.name, true]);
  });

  it.each(allTools.map((t) => [t.group, t.name, t] as const))(
    '%s: %s is served only if it reads (or enforces read-only itself)',
    async (_group, name, tool) => {
      const listed = tools.find((t) => t.name === name);
      // A tool never offered to MCP clients (server_diff: a person reviews what an agent may not read) is not listed either way.
      const offered = tool.available?.(configSchema.parse({}), { SHOW_ADMIN_TOOLS: 'true' }) !== false;
      if ((tool.annotations.readOnlyHint || tool.enforcesReadOnly) && offered) {
        expect(listed?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      } else {
        expect(listed).toBeUndefined();
        expect(await unknownTool(client, name)).toBe(true);
      }
    },
  );

  it('leaves out upstream tools that do not declare readOnlyHint: true, and refuses calls to them', async () => {
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-env', 'memory__read_graph', 'memory__search_nodes']));
    expect(names).not.toContain('everything__toggle-simulated-logging');
    expect(names).not.toContain('memory__create_entities');
    expect(await unknownTool(client, 'memory__create_entities')).toBe(true);
    expect(await unknownTool(client, 'everything__trigger-sampling-request')).toBe(true);
  });

  it('writes nothing to the environment that upstream servers inherit', async () => {
    const r = (await client.callTool({ name: 'everything__get-env', arguments: {} })) as CallToolResult;
    const env = JSON.parse((r.content[0] as { text: string }).text) as Record<string, string>;
    expect(env.PATH).toBeDefined(); // it is the environment
    expect(Object.keys(env).filter((k) => /READ_ONLY/.test(k))).toEqual([]);
  });

  it('a writer that enforces read-only is served as a reader (its refusals are tested in arango.test.ts)', () => {
    const query = tools.find((t) => t.name === 'arango_query')!;
    expect(query.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });
});

describe('a view with read_only: true', () => {
  let client: Client;

  beforeAll(async () => {
    client = await connect(['--view', 'ro']);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('serves only the reading tools of its groups and servers, while serve itself is not read-only', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['server_list', 'view_list', 'list_servers', 'echo', 'get-env']));
    for (const writer of ['server_add', 'server_import', 'view_create', 'registry_add', 'switch_tenant_id', 'toggle-simulated-logging']) {
      expect(names).not.toContain(writer);
      expect(await unknownTool(client, writer)).toBe(true);
    }
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
  });
});

describe('without read-only', () => {
  it('the same writers are served (the policy is what removes them)', async () => {
    const client = await connect([]);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['server_add', 'switch_tenant_id', 'everything__toggle-simulated-logging', 'memory__create_entities']));
      const query = (await client.listTools()).tools.find((t) => t.name === 'arango_query')!;
      expect(query.annotations?.readOnlyHint).toBe(false);
    } finally {
      await client.close();
    }
  });
});
