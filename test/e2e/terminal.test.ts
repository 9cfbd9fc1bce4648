import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/** The terminal as its users expect it (issue 17, the parts done so far). */
describe('call reports failures like every command', () => {
  const env = cleanEnv({ MCPKIT_CONFIG: writeConfig({ mcp_servers: { everything: SERVERS.everything } }) });

  it('an upstream tool refusing its arguments: Error [CODE] on stderr, nothing on stdout, exit 2', async () => {
    const r = await runCli(['call', 'get-sum', 'a=1'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Error \[INVALID_INPUT\]: Invalid arguments for get-sum: .*"b"/m);
    const json = await runCli(['call', 'get-sum', 'a=1', '--json'], { env });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ isError: true, structuredContent: { error: { code: 'INVALID_INPUT' } } });
  }, 30_000);

  it('a key=value that does not fit its type is named as written, not as a flag', async () => {
    const r = await runCli(['call', 'get-sum', 'a=x', 'b=1'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a= expects a number, got "x".');
  }, 30_000);
});

describe('machine-readable output stays pure', () => {
  it('view install: JSON alone on stdout, the hint on stderr', async () => {
    const env = cleanEnv({ MCPKIT_CONFIG: writeConfig({ tool_views: { research: {} } }) });
    const r = await runCli(['view', 'install', 'research', '--client', 'claude'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ mcpServers: { 'mcpkit-research': { command: 'mcpkit' } } });
    expect(r.stderr).toContain('merge into claude_desktop_config.json');
  });

  it('config path: the path alone on stdout, why on stderr', async () => {
    const dir = tempDir();
    const r = await runCli(['config', 'path'], { env: cleanEnv({ MCPKIT_CONFIG: `${dir}/team.yaml` }), cwd: dir });
    expect(r.stdout).toBe(`${dir}/team.yaml\n`);
    expect(r.stderr).toContain('chosen by MCPKIT_CONFIG; the file does not exist');
  });

  it('tools --json lists exactly what serve offers, each with its input schema', async () => {
    const env = cleanEnv({ MCPKIT_CONFIG: writeConfig({}) });
    const listed = JSON.parse((await runCli(['tools', '--json'], { env })).stdout) as { name: string; input_schema: { type: string } }[];
    for (const tool of listed) expect(tool.input_schema.type).toBe('object');
    expect(listed.map((t) => t.name)).not.toContain('switch_tenant_id'); // an admin tool, off
    const client = new Client({ name: 'terminal', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve'], env: env as Record<string, string>, stderr: 'ignore' }));
    try {
      const served = (await client.listTools()).tools;
      expect(listed.map((t) => t.name).sort()).toEqual(served.map((t) => t.name).sort());
      const one = served.find((t) => t.name === 'search')!;
      expect(listed.find((t) => t.name === 'search')!.input_schema).toEqual(one.inputSchema);
    } finally {
      await client.close();
    }
  });
});

describe('serve started by hand', () => {
  it('says on stderr, once, that it waits for an MCP client on stdin', () => {
    // script(1) gives serve a terminal for its stdin, as a person's shell would.
    const r = spawnSync('script', ['-qec', `${process.execPath} ${BIN} serve`, '/dev/null'], { env: cleanEnv(), encoding: 'utf8', timeout: 10_000, input: '' });
    const said = (r.stdout ?? '').match(/waiting for a client/g) ?? [];
    expect(said).toHaveLength(1);
    expect(r.stdout).toContain('Ctrl-C stops it');
  });
});

describe('help and mistakes', () => {
  it.each([[['help']], [['help', 'config']], [['-h']], [['config', '-h']], [['--help']]])('%j shows help, exit 0', async (args) => {
    const r = await runCli(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/USAGE|COMMANDS|TOPICS/);
  });

  it.each([
    [['retrieve', 'serch', 'foo'], '"retrieve serch" is not an mcpkit command.', '"mcpkit retrieve search"'],
    [['confg', 'path'], '"confg path" is not an mcpkit command.', '"mcpkit config path"'],
    [['serv'], '"serv" is not an mcpkit command.', '"mcpkit serve"'],
  ])('a mistyped command %j is bad usage in the user\'s words, with the closest commands', async (args, message, suggestion) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Error [INVALID_INPUT]: ${message}`);
    expect(r.stderr).toContain(`Did you mean ${suggestion}`);
    expect(r.stderr).not.toContain(':serch');
  });

  it('a bad --port is bad usage (exit 2)', async () => {
    const r = await runCli(['serve', '--http', '--port', 'abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Error [INVALID_INPUT]: --port must be a whole number from 0 to 65535, got "abc".');
  });

  it('with --json the mistake is JSON on stdout', async () => {
    const r = await runCli(['registry', 'lst', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'INVALID_INPUT', hint: expect.stringContaining('mcpkit registry list') } });
  });
});
