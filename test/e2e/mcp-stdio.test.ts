import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const configFile = join(tempDir(), 'mcpkit.yaml');
writeFileSync(configFile, 'mcp_servers:\n  gh:\n    url: https://example.com/mcp\n    headers:\n      Authorization: "Bearer ${E2E_GH_TOKEN}"\n');

describe('mcpkit serve over stdio, driven by the MCP SDK client', () => {
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = '';
  const clientErrors: Error[] = [];

  beforeAll(async () => {
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--exposure', 'direct'], // every tool listed: the listing is what these tests check
      env: cleanEnv({ MCPKIT_CONFIG: configFile, E2E_GH_TOKEN: 'ghp_supersecret', MCPKIT_LOG_LEVEL: 'debug' }) as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d) => (stderr += d));
    client = new Client({ name: 'e2e', version: '1.0.0' });
    client.onerror = (error) => clientErrors.push(error);
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
  });

  it('initializes as mcpkit with the package version and the tools capability', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'mcpkit', version });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toMatch(/isError/);
  });

  it('lists every tool with a JSON Schema input and all four annotations', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['config_path', 'config_show', 'config_validate', 'config_schema']));
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description?.length).toBeGreaterThan(10);
      expect(tool.annotations).toMatchObject({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: expect.any(Boolean),
      });
    }
    const show = tools.find((t) => t.name === 'config_show')!;
    expect(show.inputSchema.properties).toMatchObject({ resolved: { type: 'boolean', default: false } });
  });

  it('answers a call with structuredContent and the same JSON as text', async () => {
    const result = await client.callTool({ name: 'config_path', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ path: configFile, source: 'env', chosen_by: 'MCPKIT_CONFIG', exists: true });
    const [content] = result.content as { type: string; text: string }[];
    expect(content!.type).toBe('text');
    expect(JSON.parse(content!.text)).toEqual(result.structuredContent);
  });

  it('masks secrets that come from the environment', async () => {
    const result = await client.callTool({ name: 'config_show', arguments: { resolved: true } });
    expect(result.isError).toBeFalsy();
    const text = JSON.stringify(result);
    expect(text).not.toContain('ghp_supersecret');
    expect(
      (result.structuredContent as { config: { mcp_servers: { gh: { headers: { Authorization: string } } } } }).config.mcp_servers.gh.headers.Authorization,
    ).toBe('********');
  });

  it('refuses reveal over MCP', async () => {
    const result = await client.callTool({ name: 'config_show', arguments: { resolved: true, reveal: true } });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    expect(JSON.stringify(result)).not.toContain('ghp_supersecret');
  });

  it.each([
    ['a wrong type', { resolved: 'yes' }, 'resolved'],
    ['an unknown argument', { resolve: true }, '(root)'],
  ])('turns %s into isError INVALID_INPUT with the zod issues', async (_name, args, path) => {
    const result = await client.callTool({ name: 'config_show', arguments: args });
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { code: string; details: { issues: { path: string }[] } } }).error;
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.details.issues.map((i) => i.path)).toContain(path);
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual({ error });
  });

  it('answers an unknown tool with a JSON-RPC invalid-params error and a suggestion', async () => {
    const call = client.callTool({ name: 'config_shw', arguments: {} });
    await expect(call).rejects.toBeInstanceOf(ProtocolError);
    await expect(call).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: config_shw.*config_show/) });
  });

  it('keeps serving after bad calls, with a clean stdout and logs on stderr only', async () => {
    const result = await client.callTool({ name: 'config_validate', arguments: {} });
    expect(result.structuredContent).toMatchObject({ valid: true, servers: 1 });
    expect(clientErrors).toEqual([]);
    expect(stderr).toContain('serve: ready on stdio');
  });

  it('exits when the client closes the connection', async () => {
    const pid = transport.pid!;
    expect(pid).toBeGreaterThan(0);
    await client.close();
    const deadline = Date.now() + 5_000;
    let alive = true;
    while (alive && Date.now() < deadline) {
      try {
        process.kill(pid, 0);
        await new Promise((r) => setTimeout(r, 50));
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  });
});

describe('mcpkit serve with its input piped in', () => {
  it('answers every request it read before stdin ended, then exits', async () => {
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'printf', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'config_path', arguments: {} } },
    ];
    const config = join(tempDir(), 'mcpkit.yaml');
    writeFileSync(config, '{}\n');
    const result = await runCli(['serve', '--config', config], { input: lines.map((l) => JSON.stringify(l)).join('\n') + '\n', env: cleanEnv() });
    expect(result.code).toBe(0);
    const answers = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; result?: unknown });
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
    expect(answers.every((a) => a.result !== undefined)).toBe(true);
  });
});

describe('mcpkit serve through oclif (not the fast path)', () => {
  it('initializes and answers a call the same way', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'test/fixtures/serve-through-oclif.mjs'), '--config', configFile],
      env: cleanEnv({ E2E_GH_TOKEN: 'x' }) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'mcpkit', version });
      const result = await client.callTool({ name: 'config_path', arguments: {} });
      expect(result.structuredContent).toMatchObject({ path: configFile, source: 'flag' });
    } finally {
      await client.close();
    }
  });
});
