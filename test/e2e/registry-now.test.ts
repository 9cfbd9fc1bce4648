import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCommand, tempDir } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { startRegistry } from '../fixtures/registry-server.mjs';

/**
 * The registry as it is now (server.json 2025-12-11 and the draft): URL template variables,
 * NuGet packages, status (deprecated, deleted, include_deleted), post-install instructions, and
 * what registry add records so that `registry outdated` and `registry update` can follow a server.
 */

const official = (over: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol.registry/official': {
    status: 'active',
    publishedAt: '2025-06-01T00:00:00Z',
    updatedAt: '2025-06-01T00:00:00Z',
    isLatest: true,
    ...over,
  },
});
const npm = (name: string, version: string, extra: Record<string, unknown> = {}) => ({
  registryType: 'npm',
  identifier: name,
  version,
  transport: { type: 'stdio' },
  environmentVariables: [{ name: 'API_KEY', isRequired: true, isSecret: true }],
  ...extra,
});
const ENTRIES = [
  {
    server: {
      name: 'com.example/tenant-mcp',
      version: '1.0.0',
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://{tenant_id}.mcp.example.com/mcp',
          variables: { tenant_id: { description: 'Your tenant, e.g. acme', isRequired: true } },
        },
      ],
    },
    _meta: official(),
  },
  {
    server: { name: 'io.github.mcpkit/dotnet-tool', version: '2.1.0', packages: [{ registryType: 'nuget', identifier: 'Acme.Mcp', version: '2.1.0' }] },
    _meta: official(),
  },
  {
    server: { name: 'io.github.mcpkit/old-tool', version: '0.9.0', packages: [npm('old-tool', '0.9.0')] },
    _meta: official({ status: 'deprecated', statusMessage: 'Use io.github.mcpkit/versioned instead.', statusChangedAt: '2026-01-01T00:00:00Z' }),
  },
  {
    server: { name: 'io.github.mcpkit/gone-tool', version: '1.0.0', packages: [npm('gone-tool', '1.0.0')] },
    _meta: official({ status: 'deleted', statusMessage: 'Malware.' }),
  },
  { server: { name: 'io.github.mcpkit/versioned', version: '1.0.0', packages: [npm('versioned', '1.0.0')] }, _meta: official({ isLatest: false }) },
  {
    server: {
      name: 'io.github.mcpkit/versioned',
      version: '1.1.0',
      packages: [
        npm('versioned', '1.1.0', { postInstallInstructions: { description: 'Create an API key at https://example.com/keys.', command: 'versioned login' } }),
      ],
    },
    _meta: official(),
  },
];

let registry: Awaited<ReturnType<typeof startRegistry>>;
let dir: string;
let file: string;

beforeAll(async () => {
  registry = await startRegistry({ entries: ENTRIES });
  dir = tempDir('mcpkit-registry-now-');
  file = join(dir, 'mcpkit.yaml');
  writeFileSync(file, `registry:\n  default: local\n  retries: 0\n  sources:\n    local:\n      url: ${registry.url}\n`);
});
afterAll(() => registry.close());

// A PATH without dnx: the note that says so is part of what is tested.
const run = (args: string[], env: Record<string, string> = {}) => runCommand([...args, '--config', file], { env: cleanEnv({ PATH: '/usr/bin:/bin', ...env }) });
const json = async (args: string[], env: Record<string, string> = {}) => {
  const r = await run([...args, '--json'], env);
  return { ...r, body: JSON.parse(r.stdout || '{}') as Record<string, any> };
};
const servers = () => (parse(readFileSync(file, 'utf8')) as { mcp_servers: Record<string, Record<string, any>> }).mcp_servers;

describe('status', () => {
  it('lists leave deleted servers out unless --include-deleted, and flag deprecated ones', async () => {
    const plain = await json(['registry', 'list', '--search', 'mcpkit']);
    expect(plain.body.servers.map((e: any) => e.server.name)).not.toContain('io.github.mcpkit/gone-tool');
    const all = await json(['registry', 'list', '--search', 'mcpkit', '--include-deleted']);
    expect(all.body.servers.map((e: any) => e.server.name)).toContain('io.github.mcpkit/gone-tool');
    expect(registry.control.requests.at(-1)!.query).toMatchObject({ include_deleted: 'true' });
    const table = await run(['registry', 'list', '--search', 'old-tool']);
    expect(table.stdout).toMatch(/io\.github\.mcpkit\/old-tool\s+0\.9\.0\s+deprecated/);
    const shown = await run(['registry', 'get', 'io.github.mcpkit/old-tool']);
    expect(shown.stdout).toContain('Status: deprecated since 2026-01-01T00:00:00Z: Use io.github.mcpkit/versioned instead.');
  });

  it('add refuses a deleted server, and a deprecated one without --force', async () => {
    const gone = await json(['registry', 'add', 'io.github.mcpkit/gone-tool']);
    expect(gone.code).toBe(2);
    expect(gone.body.error.message).toContain('is deleted from the registry: Malware.');
    const old = await json(['registry', 'add', 'io.github.mcpkit/old-tool']);
    expect(old.code).toBe(2);
    expect(old.body.error.message).toContain('deprecated in the registry: Use io.github.mcpkit/versioned instead.');
    expect(old.body.error.hint).toContain('--force');
    expect(servers()).toBeUndefined();
    const forced = await json(['registry', 'add', 'io.github.mcpkit/old-tool', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.body.status).toMatchObject({ status: 'deprecated' });
  });
});

describe('what add writes', () => {
  it("a remote's {variables} become ${VAR} references (or take --var values); an unset one is a problem, a value that would change the host is refused", async () => {
    const added = await json(['registry', 'add', 'com.example/tenant-mcp']);
    expect(added.code, added.stderr).toBe(0);
    expect(servers()['tenant-mcp']!.url).toBe('https://${TENANT_ID}.mcp.example.com/mcp');
    expect(added.body.variables).toEqual([
      { name: 'TENANT_ID', required: true, secret: false, urlVariable: 'tenant_id', description: 'Your tenant, e.g. acme' },
    ]);
    const unset = await run(['config', 'validate']);
    expect(unset.stderr).toContain('mcp_servers.tenant-mcp.url: environment variable TENANT_ID is not set');
    const evil = await run(['config', 'validate'], { TENANT_ID: 'evil.example/x?' });
    expect(evil.stderr).toContain('environment variable TENANT_ID cannot go where it stands');
    const set = await run(['config', 'validate'], { TENANT_ID: 'acme' });
    expect(set.stderr).not.toContain('TENANT_ID');
    const given = await json(['registry', 'add', 'com.example/tenant-mcp', '--as', 'acme', '--var', 'tenant_id=acme']);
    expect(servers().acme!.url).toBe('https://acme.mcp.example.com/mcp');
    expect(given.body.variables).toEqual([]);
  });

  it('a NuGet package runs with dnx, saying so when dnx is missing; add records where each server came from', async () => {
    const added = await json(['registry', 'add', 'io.github.mcpkit/dotnet-tool']);
    expect(added.code, added.stderr).toBe(0);
    expect(servers()['dotnet-tool']).toMatchObject({
      command: 'dnx',
      args: ['--yes', 'Acme.Mcp@2.1.0'],
      registry: { source: 'local', name: 'io.github.mcpkit/dotnet-tool', version: '2.1.0', package: 'nuget' },
    });
    expect(added.body.notes.join(' ')).toContain('dnx, the .NET 10 tool runner, is not on the PATH');
  });

  it('post-install instructions are shown, never run', async () => {
    const added = await run(['registry', 'add', 'io.github.mcpkit/versioned']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('After installing, the package says (shown, not run):');
    expect(added.stdout).toContain('Command (not run): versioned login');
  });
});

describe('outdated and update', () => {
  it('outdated finds the outdated and the deprecated, exit 1; update moves one on and keeps what was set; then only the deprecated one is left', async () => {
    // Three registry servers: versioned (current, added above), old-versioned at 1.0.0, old-tool (deprecated).
    const older = await json(['registry', 'add', 'io.github.mcpkit/versioned', '--version', '1.0.0', '--as', 'old-versioned']);
    expect(older.code, older.stderr).toBe(0);
    // Local changes update must keep: a value set for a variable, and a filter.
    const text = readFileSync(file, 'utf8').replace(/(old-versioned:\n(?:.*\n)*?\s+env:\n\s+API_KEY: )"?\$\{API_KEY\}"?/, '$1"${MY_OWN_KEY}"');
    writeFileSync(file, text);
    expect((await run(['filter', 'set', 'old-versioned', '--exclude', 'danger_*'])).code).toBe(0);
    for (const name of ['tenant-mcp', 'acme', 'dotnet-tool']) {
      const removed = await run(['server', 'remove', name]);
      expect(removed.code, `${removed.stdout}${removed.stderr}`).toBe(0);
    }

    const report = await json(['registry', 'outdated']);
    expect(report.code, JSON.stringify(report.body)).toBe(1);
    const byServer = Object.fromEntries(report.body.servers.map((r: any) => [r.server, r]));
    expect(byServer.versioned).toMatchObject({ installed: '1.1.0', latest: '1.1.0', finding: 'current' });
    expect(byServer['old-versioned']).toMatchObject({ installed: '1.0.0', latest: '1.1.0', finding: 'update' });
    expect(byServer['old-tool']).toMatchObject({ finding: 'deprecated', status_message: 'Use io.github.mcpkit/versioned instead.' });
    const table = await run(['registry', 'outdated']);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/old-versioned\s+io\.github\.mcpkit\/versioned\s+1\.0\.0\s+1\.1\.0/);
    expect(table.stdout).toContain('mcpkit registry update old-versioned');

    const updated = await json(['registry', 'update', 'old-versioned']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.body).toMatchObject({ from: '1.0.0', to: '1.1.0', changed: true });
    const entry = servers()['old-versioned']!;
    expect(entry.args).toEqual(['-y', 'versioned@1.1.0']);
    expect(entry.env).toEqual({ API_KEY: '${MY_OWN_KEY}' });
    expect(entry.filter).toEqual([{ exclude: 'danger_*' }]);
    expect(entry.registry).toMatchObject({ version: '1.1.0' });

    const after = await json(['registry', 'outdated']);
    expect(after.body.servers.filter((r: any) => r.finding !== 'current').map((r: any) => r.server)).toEqual(['old-tool']);
    const again = await json(['registry', 'update', 'old-versioned']);
    expect(again.body).toMatchObject({ changed: false, to: '1.1.0' });
  });

  it('update refuses a server that did not come from a registry, naming what to do', async () => {
    writeFileSync(file, `${readFileSync(file, 'utf8')}  handmade:\n    command: node\n`);
    const r = await json(['registry', 'update', 'handmade']);
    expect(r.code).toBe(2);
    expect(r.body.error.message).toContain('did not come from a registry');
  });
});

describe('an MCP bundle (mcpb)', () => {
  const SERVER = [
    "import { createInterface } from 'node:readline';",
    "const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');",
    "createInterface({ input: process.stdin }).on('line', (line) => {",
    '  const m = JSON.parse(line);',
    "  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bundle-echo', version: '1.0.0' } } });",
    "  else if (m.method === 'tools/list') send({ id: m.id, result: { tools: [{ name: 'echo', description: 'Echoes with the greeting.', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } }] } });",
    "  else if (m.method === 'tools/call') send({ id: m.id, result: { content: [{ type: 'text', text: `${process.env.GREETING}: ${m.params.arguments.message}` }] } });",
    "  else if (m.id !== undefined) send({ id: m.id, error: { code: -32601, message: 'Method not found' } });",
    '});',
  ].join('\n');
  const MANIFEST = {
    manifest_version: '0.3',
    name: 'bundle-echo',
    version: '1.0.0',
    description: 'An echo server in a bundle.',
    author: { name: 'mcpkit tests' },
    server: {
      type: 'node',
      entry_point: 'server/index.mjs',
      mcp_config: { command: 'node', args: ['${__dirname}/server/index.mjs'], env: { GREETING: '${user_config.greeting}' } },
    },
    user_config: { greeting: { type: 'string', title: 'Greeting', description: 'What the echo says first', default: 'hello' } },
  };
  let bundles: import('node:http').Server;
  let bundleRegistry: Awaited<ReturnType<typeof startRegistry>>;
  let bundleConfig: string;
  let cache: string;

  beforeAll(async () => {
    const { default: JSZip } = await import('jszip');
    const zip = new JSZip();
    zip.file('manifest.json', JSON.stringify(MANIFEST, null, 2));
    zip.file('server/index.mjs', SERVER);
    const good = await zip.generateAsync({ type: 'nodebuffer' });
    const bad = Buffer.from(good);
    bad[bad.length - 30] = bad[bad.length - 30]! ^ 0x01; // one byte changed
    const { createServer } = await import('node:http');
    bundles = createServer((req, res) => res.end(req.url === '/good.mcpb' ? good : bad));
    await new Promise<void>((resolve) => bundles.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(bundles.address() as { port: number }).port}`;
    const sha256 = (await import('node:crypto')).createHash('sha256').update(good).digest('hex');
    const pkg = (url: string) => ({ registryType: 'mcpb', identifier: url, version: '1.0.0', fileSha256: sha256, transport: { type: 'stdio' } });
    bundleRegistry = await startRegistry({
      entries: [
        { server: { name: 'io.github.mcpkit/bundle', version: '1.0.0', packages: [pkg(`${base}/good.mcpb`)] }, _meta: official() },
        { server: { name: 'io.github.mcpkit/bad-bundle', version: '1.0.0', packages: [pkg(`${base}/bad.mcpb`)] }, _meta: official() },
      ],
    });
    const folder = tempDir('mcpkit-bundle-');
    cache = join(folder, 'cache');
    bundleConfig = join(folder, 'mcpkit.yaml');
    writeFileSync(bundleConfig, `registry:\n  default: local\n  retries: 0\n  sources:\n    local:\n      url: ${bundleRegistry.url}\n`);
  });
  afterAll(async () => {
    await bundleRegistry?.close();
    bundles?.close();
  });

  const add = (name: string) => runCommand(['registry', 'add', name, '--config', bundleConfig, '--json'], { env: cleanEnv({ XDG_CACHE_HOME: cache }) });

  it('one byte changed: refused, and nothing is unpacked', async () => {
    const r = await add('io.github.mcpkit/bad-bundle');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('it was not installed, nor unpacked') });
    expect(existsSync(join(cache, 'mcpkit', 'bundles'))).toBe(false);
    expect(readFileSync(bundleConfig, 'utf8')).not.toContain('mcp_servers');
  });

  it('the bundle is fetched, checked, unpacked, installed; serve starts it and it answers a call', async () => {
    const r = await add('io.github.mcpkit/bundle');
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const entry = (parse(readFileSync(bundleConfig, 'utf8')) as { mcp_servers: Record<string, Record<string, any>> }).mcp_servers.bundle!;
    const dir = join(cache, 'mcpkit', 'bundles', entry.registry.sha256);
    expect(entry).toMatchObject({
      command: 'node',
      args: [join(dir, 'server/index.mjs')],
      env: { GREETING: '${GREETING:-hello}' },
      cwd: dir,
      registry: { package: 'mcpb' },
    });
    expect(JSON.parse(r.stdout).variables).toEqual([{ name: 'GREETING', required: false, secret: false, description: 'What the echo says first' }]);
    const served = await serveStdioInProcess(bundleConfig);
    try {
      const result = await served.client.callTool({ name: 'bundle__echo', arguments: { message: 'from a bundle' } });
      expect(result.content).toEqual([{ type: 'text', text: 'hello: from a bundle' }]);
    } finally {
      await served.client.close();
    }
  }, 30_000);
});
