import { type Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir, runCommand } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { startRegistry } from '../fixtures/registry-server.mjs';

type Registry = Awaited<ReturnType<typeof startRegistry>>;
let registry: Registry;
let dir: string;
let env: NodeJS.ProcessEnv;
const LONG = `A server with a long description. ${'x'.repeat(300)}`;
const long = {
  server: {
    name: 'io.github.mcpkit/long-readme',
    description: LONG,
    version: '1.0.0',
    packages: [{ registryType: 'npm', identifier: 'long-readme', version: '1.0.0', transport: { type: 'stdio' } }],
  },
  _meta: {
    'io.modelcontextprotocol.registry/official': { status: 'active', publishedAt: '2025-06-01T00:00:00Z', updatedAt: '2025-06-01T00:00:00Z', isLatest: true },
  },
};

function writeConfig(extra = ''): void {
  writeFileSync(join(dir, 'mcpkit.yaml'), `registry:\n  default: local\n  retries: 1\n  sources:\n    local:\n      url: ${registry.url}\n${extra}`);
}

beforeAll(async () => {
  registry = await startRegistry({ extraVersions: [long] });
  dir = tempDir('mcpkit-registry-');
  writeConfig();
  env = cleanEnv({ MCPKIT_CONFIG: join(dir, 'mcpkit.yaml') });
});
afterAll(() => registry.close());

const json = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
  const r = await runCommand([...args, '--json'], { env: { ...env, ...extraEnv } });
  return { code: r.code, body: JSON.parse(r.stdout) as Record<string, any>, stderr: r.stderr };
};

describe('registry from the terminal', () => {
  it('list returns the API JSON in full (server and _meta), with the next cursor', async () => {
    const { code, body } = await json(['registry', 'list', '--search', 'long-readme']);
    expect(code).toBe(0);
    expect(body.servers).toEqual([long]); // no truncation in the terminal
    const page = await json(['registry', 'list', '--limit', '2']);
    expect(page.body.servers).toHaveLength(2);
    expect(page.body.metadata.nextCursor).toEqual(expect.any(String));
  });

  it('--all stops at registry.max_pages with a clear error when cursors never end', async () => {
    registry.control.abuse = 'endless';
    try {
      writeConfig('  max_pages: 7\n');
      const started = Date.now();
      const r = await json(['registry', 'list', '--all']);
      expect(r.code).toBe(1);
      expect(r.body.error).toMatchObject({
        code: 'RESPONSE_TOO_LARGE',
        message: expect.stringContaining('stopped after 7 pages'),
        hint: expect.stringContaining('--cursor'),
      });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      registry.control.abuse = false;
      writeConfig();
    }
  });

  it('--truncate shortens like MCP does', async () => {
    const { body } = await json(['registry', 'list', '--search', 'long-readme', '--truncate']);
    expect(body.servers[0].server.description).toBe(
      `${LONG.slice(0, 200)}... [TRUNCATED - use expand_fields: ["servers[].server.description"] to see full content]`,
    );
    const expanded = await json(['registry', 'list', '--search', 'long-readme', '--truncate', '--expand-fields', 'servers[].server.description']);
    expect(expanded.body.servers[0].server.description).toBe(LONG);
  });

  it('list --all follows every cursor', async () => {
    const { body } = await json(['registry', 'list', '--limit', '100', '--all']);
    expect(body.servers).toHaveLength(465);
    expect(body.metadata).toEqual({ count: 465, pages: 5 });
  });

  it('shows a table with name, version, status, transports, what it is, and the next-page command', async () => {
    const r = await runCommand(['registry', 'list', '--limit', '3', '--search', 'mcp'], { env });
    expect(r.code).toBe(0);
    const [header, ...rows] = r.stdout.split('\n');
    expect(header).toMatch(/^NAME\s+VERSION\s+STATUS\s+TRANSPORTS\s+DESCRIPTION$/);
    // The description column says what a server is (a row is not just its name again).
    const first = (await json(['registry', 'list', '--limit', '3', '--search', 'mcp'])).body.servers[0].server as { name: string; description?: string };
    expect(rows[0]).toContain(first.name);
    if (first.description) expect(rows[0]).toContain(first.description.replace(/\s+/g, ' ').slice(0, 30));
    expect(r.stdout).toMatch(/Next page: mcpkit registry list --cursor \S+ --limit 3 --search mcp/);
    const next = r.stdout.match(/--cursor (\S+)/)![1]!;
    const following = await json(['registry', 'list', '--limit', '3', '--search', 'mcp', '--cursor', next]);
    expect(following.body.servers).toHaveLength(3);
  });

  it('get and versions', async () => {
    const got = await json(['registry', 'get', 'io.github.21st-dev/magic-mcp']);
    expect(got.body.server.packages[0].identifier).toBe('@21st-dev/magic');
    expect(got.body._meta['io.modelcontextprotocol.registry/official'].isLatest).toBe(true);
    const human = await runCommand(['registry', 'get', 'io.github.21st-dev/magic-mcp'], { env });
    expect(human.stdout).toContain('Package: npm @21st-dev/magic@0.0.46 (stdio)');
    const versions = await json(['registry', 'versions', 'io.github.21st-dev/magic-mcp']);
    expect(versions.body.servers.map((e: { server: { version: string } }) => e.server.version)).toEqual(['0.0.46']);
  });

  it('errors carry the seed messages and codes', async () => {
    const missing = await json(['registry', 'get', 'io.github.nobody/none', '--version', '2.0.0']);
    expect(missing.code).toBe(1);
    expect(missing.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Server not found: io.github.nobody/none (version: 2.0.0)' });
    registry.control.failNext({ status: 401, body: { detail: 'Invalid API key' } });
    const denied = await json(['registry', 'list']);
    expect(denied.body.error).toMatchObject({ code: 'AUTH_FAILED', message: 'Authentication failed: Invalid API key' });
    const badDate = await json(['registry', 'list', '--updated-since', 'yesterday']);
    expect(badDate.code).toBe(2);
    const unknown = await json(['registry', 'list', '--registry', 'nope']);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    expect(unknown.body.error.message).toContain('nope');
  });

  it('add writes an upstream server with ${VAR} references; validate passes and server list shows it', async () => {
    const added = await json(['registry', 'add', 'io.github.21st-dev/magic-mcp', '--as', 'magic']);
    expect(added.code).toBe(0);
    expect(added.body).toMatchObject({
      server: 'magic',
      source: { registry: 'local', name: 'io.github.21st-dev/magic-mcp', version: '0.0.46', package: 'npm' },
      entry: { command: 'npx', args: ['-y', '@21st-dev/magic@0.0.46'], env: { API_KEY: '${API_KEY:-}' } },
      variables: [{ name: 'API_KEY', required: false, secret: false }],
    });
    expect(readFileSync(join(dir, 'mcpkit.yaml'), 'utf8')).toContain('API_KEY: ${API_KEY:-}');
    expect((await runCommand(['config', 'validate'], { env })).code).toBe(0);
    const list = await json(['server', 'list']);
    expect(list.body.servers).toContainEqual(expect.objectContaining({ name: 'magic', env: ['API_KEY=${API_KEY:-}'] }));
    const again = await json(['registry', 'add', 'io.github.21st-dev/magic-mcp', '--as', 'magic']);
    expect(again.body.error.code).toBe('CONFLICT');
    const before = readFileSync(join(dir, 'mcpkit.yaml'), 'utf8');
    const noPkg = await json(['registry', 'add', 'io.github.21st-dev/magic-mcp', '--package', 'oci']);
    expect(noPkg.body.error).toMatchObject({ code: 'INVALID_INPUT', message: 'io.github.21st-dev/magic-mcp has no oci package.' });
    expect(readFileSync(join(dir, 'mcpkit.yaml'), 'utf8')).toBe(before);
  });

  it('switch-tenant is an admin tool; with admin tools on it saves the tenant, and requests carry it', async () => {
    const refused = await json(['registry', 'switch-tenant', 'acme']);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    const bad = await json(['registry', 'switch-tenant', 'bad tenant!'], { SHOW_ADMIN_TOOLS: 'true' });
    expect(bad.code).toBe(2);
    const saved = await json(['registry', 'switch-tenant', 'acme'], { SHOW_ADMIN_TOOLS: 'true' });
    expect(saved.body).toMatchObject({ registry: 'local', tenant_id: 'acme', scope: 'config' });
    await json(['registry', 'list', '--limit', '1']);
    expect(registry.control.requests.at(-1)!.tenant).toBe('acme');
    await json(['registry', 'switch-tenant', ''], { SHOW_ADMIN_TOOLS: 'true' });
    await json(['registry', 'list', '--limit', '1']);
    expect(registry.control.requests.at(-1)!.tenant).toBeUndefined();
  });
});

describe('registry over MCP', () => {
  // A config of each test's own, as the first beforeAll writes it: serve starts the servers its
  // config names, and those the tests above and registry_add write are npx lines it would wait on.
  beforeEach(() => {
    dir = tempDir('mcpkit-registry-');
    writeConfig();
    env = cleanEnv({ MCPKIT_CONFIG: join(dir, 'mcpkit.yaml') });
  });
  async function connect(extraEnv: Record<string, string> = {}) {
    // serve in this process (helpers/in-process.ts), to a person who approves what the agent asks
    // to install (registry_add runs npx).
    return (await serveStdioInProcess({ argv: ['--exposure', 'direct'], env: { ...env, ...extraEnv }, name: 'registry-test', approve: true })).client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  it('serves the registry tools, truncating for the model unless expand_fields asks', async () => {
    const client = await connect();
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['list_servers', 'get_server', 'list_versions', 'registry_add']));
      expect(names).not.toContain('switch_tenant_id');
      const list = await call(client, 'list_servers', { search: 'long-readme' });
      const body = list.structuredContent as { servers: { server: { description: string }; _meta: unknown }[] };
      expect(body.servers[0]!.server.description).toContain('[TRUNCATED - use expand_fields: ["servers[].server.description"] to see full content]');
      expect(body.servers[0]!._meta).toEqual(long._meta);
      const full = await call(client, 'get_server', { name: 'io.github.mcpkit/long-readme', expand_fields: ['server.description'] });
      expect((full.structuredContent as { server: { description: string } }).server.description).toBe(LONG);
      const versions = await call(client, 'list_versions', { name: 'io.github.21st-dev/magic-mcp' });
      expect((versions.structuredContent as { servers: { server: { version: string } }[] }).servers.map((e) => e.server.version)).toEqual(['0.0.46']);
      const added = await call(client, 'registry_add', { name: 'io.github.mcpkit/long-readme', as: 'long-readme' });
      expect(added.structuredContent).toMatchObject({ server: 'long-readme', entry: { command: 'npx', args: ['-y', 'long-readme@1.0.0'] } });
      expect(readFileSync(join(dir, 'mcpkit.yaml'), 'utf8')).toContain('long-readme@1.0.0');
      const bad = await call(client, 'list_servers', { limit: 500 });
      expect(bad.isError).toBe(true);
      const missing = await call(client, 'get_server', { name: 'io.github.nobody/none' });
      expect(missing.isError).toBe(true);
      expect((missing.structuredContent as { error: { message: string } }).error.message).toBe('Server not found: io.github.nobody/none (version: latest)');
    } finally {
      await client.close();
    }
  });

  it('switch_tenant_id is offered with SHOW_ADMIN_TOOLS=true and lasts for the process', async () => {
    const client = await connect({ SHOW_ADMIN_TOOLS: 'true' });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('switch_tenant_id');
      const invalid = await call(client, 'switch_tenant_id', { tenant_id: 'x'.repeat(257) });
      expect(invalid.isError).toBe(true);
      expect(await call(client, 'switch_tenant_id', { tenant_id: 'blue-team' })).toMatchObject({
        structuredContent: { tenant_id: 'blue-team', scope: 'session' },
      });
      await call(client, 'list_servers', { limit: 1 });
      expect(registry.control.requests.at(-1)!.tenant).toBe('blue-team');
      await call(client, 'switch_tenant_id', { tenant_id: '' });
      await call(client, 'list_servers', { limit: 1 });
      expect(registry.control.requests.at(-1)!.tenant).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
