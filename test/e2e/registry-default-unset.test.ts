import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCommand, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, serveStdioInProcess } from '../helpers/in-process.js';
import { SERVERS, waitFor } from '../helpers/upstreams.js';
import { startRegistry } from '../fixtures/registry-server.mjs';
import type { ReloadReport } from '../../src/app/live-config.js';

/**
 * `registry source add company URL --api-key '${COMPANY_KEY}' --default` in a shell without
 * COMPANY_KEY: that registry alone cannot be used, and says why; nothing else of mcpkit notices.
 */
const KEY = 'company-key-9c41';
let company: Awaited<ReturnType<typeof startRegistry>>;
let open: Awaited<ReturnType<typeof startRegistry>>;
const mem = `  mem:\n    command: ${JSON.stringify(SERVERS.memory.command)}\n    args: ${JSON.stringify(SERVERS.memory.args)}\n`;

/** A config with one server and an open registry, then the command of the report run on it (no COMPANY_KEY anywhere). */
async function companyByDefault(file: string): Promise<void> {
  const r = await runCommand(['registry', 'source', 'add', 'company', company.url, '--api-key', '${COMPANY_KEY}', '--default', '--json'], {
    env: cleanEnv({ MCPKIT_CONFIG: file, COMPANY_KEY: undefined }),
  });
  expect(r.code, r.stdout).toBe(0);
  expect(readFileSync(file, 'utf8')).toMatch(/api_key: \$\{COMPANY_KEY\}\n[\s\S]*default: company\n/);
}

function newConfig(): string {
  const file = join(tempDir('mcpkit-registry-default-'), 'mcpkit.yaml');
  writeFileSync(file, `mcp_servers:\n${mem}registry:\n  retries: 0\n  sources:\n    open: { url: "${open.url}" }\n`);
  return file;
}

let file: string;
const env = () => cleanEnv({ MCPKIT_CONFIG: file, COMPANY_KEY: undefined });

beforeAll(async () => {
  [company, open] = await Promise.all([startRegistry({ apiKey: KEY }), startRegistry()]);
  file = newConfig();
  await companyByDefault(file);
});
afterAll(async () => {
  await Promise.all([company.close(), open.close()]);
});

describe('what does not use the registry works', () => {
  it('mcpkit tools', async () => {
    const r = await runCommand(['tools', '--json'], { env: env() });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('mem__read_graph');
  });

  it('mcpkit call', async () => {
    const r = await runCommand(['call', 'mem__read_graph', '--json'], { env: env() });
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ structuredContent: { entities: [], relations: [] } });
  });

  it('tab completion (complete-names)', async () => {
    const servers = await runCommand(['complete-names', 'servers'], { env: env() });
    expect(servers.stdout.trim().split('\n')).toEqual(['mem']);
    const tools = await runCommand(['complete-names', 'tools'], { env: env() });
    expect(tools.stdout.split('\n')).toContain('config_validate');
  });

  it('serve --http starts and serves', async () => {
    expect(process.env.COMPANY_KEY).toBeUndefined();
    // `serve --http --exposure direct` in this process, in a shell without COMPANY_KEY: what it serves and says is the point.
    const served = await serveHttpInProcess(file, { exposure: 'direct', env: cleanEnv({ COMPANY_KEY: undefined }) });
    const client = new Client({ name: 'registry-default', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('mem__read_graph');
      // It says, once, which part it cannot use.
      expect(served.lines.join('\n')).toContain('Registry source "company" cannot be used');
    } finally {
      await client.close();
      await served.close();
    }
  });

  it('serve over stdio starts and serves', async () => {
    const { client } = await serveStdioInProcess({ config: file, env: cleanEnv({ COMPANY_KEY: undefined }) });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('mem__read_graph');
    } finally {
      await client.close();
    }
  });

  it('a running serve takes the source, and every later edit, its own and an agent’s', async () => {
    const own = newConfig();
    const { client, runtime } = await serveStdioInProcess({ config: own, env: cleanEnv({ COMPANY_KEY: undefined }), approve: true });
    try {
      const reloads: ReloadReport[] = [];
      runtime.configs.live.reloaded.on((report) => void reloads.push(report));
      await companyByDefault(own);
      expect(await waitFor(() => reloads.length > 0, 20_000)).toBe(true);
      expect(reloads[0]).toMatchObject({ outcome: 'applied' });
      // Its own process: a server an agent adds runs boxed, out of reach of the pool's socket.
      const added = (await client.callTool({ name: 'server_add', arguments: { name: 'notes', ...SERVERS.memoryProcess } })) as { isError?: boolean };
      expect(added.isError, JSON.stringify(added)).not.toBe(true);
      // The agent's edit is served: its reload applied, the server added (its tools then wait for approval, as any agent's server's do).
      // A read that finds the file as already served ('unchanged': the watcher told of the first edit twice) decides nothing.
      const decided = () => reloads.slice(1).filter((r) => r.outcome !== 'unchanged');
      expect(await waitFor(() => decided().length > 0, 20_000)).toBe(true);
      expect(decided()[0]).toMatchObject({ outcome: 'applied', plan: { servers: { added: ['notes'] } } });
      expect(reloads.map((r) => r.outcome)).not.toContain('kept');
    } finally {
      await client.close();
    }
  });
});

describe('what uses that registry says which variable it needs', () => {
  const json = async (args: string[], extra: NodeJS.ProcessEnv = {}) => {
    const r = await runCommand([...args, '--json'], { env: { ...env(), ...extra } });
    return { code: r.code, body: JSON.parse(r.stdout || '{}') as Record<string, any> };
  };

  it('the default registry, named or not, fails naming the source and the variable; no request is sent', async () => {
    const before = company.control.requests.length;
    const said = (role: string) => `Registry source "company"${role} needs COMPANY_KEY (its api_key uses \${COMPANY_KEY}), which is not set.`;
    for (const [args, message] of [
      [['registry', 'list'], said(' (the default registry, registry.default)')],
      [['registry', 'list', '--registry', 'company'], said('')],
      [['registry', 'versions', 'io.github.example/x'], said(' (the default registry, registry.default)')],
    ] as const) {
      const r = await json([...args]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.body.error).toMatchObject({ code: 'CONFIG_INVALID', message });
      expect(r.body.error.hint).toContain('mcpkit registry source remove company');
    }
    expect(company.control.requests.length).toBe(before);
  });

  it('another registry works; with the key set, the default is still company and gets the key', async () => {
    expect((await json(['registry', 'list', '--registry', 'open', '--limit', '1'])).code).toBe(0);
    const r = await json(['registry', 'list', '--limit', '1'], { COMPANY_KEY: KEY });
    expect(r.code).toBe(0);
    expect(company.control.requests.at(-1)).toMatchObject({ apiKey: KEY });
  });

  it('config validate reports it as a warning for that source', async () => {
    const r = await json(['config', 'validate']);
    expect(r.code).toBe(0);
    expect(r.body).toMatchObject({
      valid: true,
      warnings: [
        { path: 'registry.sources.company.api_key', message: 'environment variable COMPANY_KEY is not set (set it, or write ${COMPANY_KEY:-default})' },
      ],
    });
    const shown = await runCommand(['config', 'validate'], { env: env() });
    expect(shown.stdout).toContain('! registry.sources.company.api_key: environment variable COMPANY_KEY is not set');
  });
});
