import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCommand } from '../helpers/cli.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

const everything = [SERVERS.everything.command, ...SERVERS.everything.args];

describe.concurrent('filter run: a standalone filtering stdio proxy', () => {
  it('serves only what the ordered rules pass, and refuses the rest', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'filter', 'run', '--exclude', 'get-env', '--include', 'get-*', '--include', 'echo', '--include', 'simple-prompt', '--', ...everything],
      env: cleanEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'f', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name).sort();
      expect(names).toEqual([
        'echo',
        'get-annotated-message',
        'get-resource-links',
        'get-resource-reference',
        'get-structured-content',
        'get-sum',
        'get-tiny-image',
      ]);
      const echo = await client.callTool({ name: 'echo', arguments: { message: 'filtered' } });
      expect(JSON.stringify(echo.content)).toContain('Echo: filtered');
      await expect(client.callTool({ name: 'get-env', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(['simple-prompt']);
      const { resources } = await client.listResources();
      expect(resources).toEqual([]); // include rules exist and no resource name matches
    } finally {
      await client.close();
    }
  });

  it('takes the command without "--", as the MCP Inspector CLI passes it', async () => {
    // everything's own arguments include a word ("stdio") and may include flags: all are the command's.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'filter', 'run', '--include', 'echo', ...everything],
      env: cleanEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'f', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    } finally {
      await client.close();
    }
  });

  it.each([
    [['filter', 'run', '--include browser_*', '--', 'x'], /quoted together/],
    [['filter', 'run', '--include', 'a'], /Give the upstream server/],
    [['filter', 'test', '--url', 'https://example.com', '--', 'x'], /not both/],
  ])('refuses %j with exit 2', async (args, message) => {
    const r = await runCommand(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe.concurrent('filter test', () => {
  it('says which rule decided for each name', async () => {
    const r = await runCommand(['filter', 'test', '--include', 'get-*', '--exclude', 'get-env', '--json', '--', ...everything]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { decisions: { kind: string; name: string; passes: boolean; because: string }[] };
    const byName = Object.fromEntries(out.decisions.filter((d) => d.kind === 'tool').map((d) => [d.name, d]));
    expect(byName['get-env']).toMatchObject({ passes: true, because: 'rule 1: --include "get-*"' });
    expect(byName.echo).toMatchObject({ passes: false, because: 'no rule matched; include rules exist, so it is excluded' });
  });
});

describe.concurrent('filter test NAME, and server test, use the rules stored on a server', () => {
  it('tests the rules stored on a configured server, or rules to try on it; server test lists what they let through', async () => {
    const env = cleanEnv({
      MCPKIT_CONFIG: writeConfig({ mcp_servers: { everything: { ...SERVERS.everything, filter: [{ exclude: 'get-env' }, { include: 'get-*' }] } } }),
    });
    const stored = await runCommand(['filter', 'test', 'everything', '--json'], { env });
    expect(stored.code, stored.stderr).toBe(0);
    const decided = (r: { stdout: string }) =>
      Object.fromEntries(
        (JSON.parse(r.stdout) as { decisions: { kind: string; name: string; passes: boolean }[] }).decisions
          .filter((d) => d.kind === 'tool')
          .map((d) => [d.name, d.passes]),
      );
    expect(decided(stored)).toMatchObject({ 'get-env': false, 'get-sum': true, echo: false });
    const tried = await runCommand(['filter', 'test', 'everything', '--include', 'echo', '--json'], { env });
    expect(decided(tried)).toMatchObject({ 'get-env': false, 'get-sum': false, echo: true });
    const tested = JSON.parse((await runCommand(['server', 'test', 'everything', '--json'], { env })).stdout) as { tools: { name: string }[]; hidden: number };
    expect(tested.tools.map((t) => t.name)).toContain('get-sum');
    expect(tested.tools.map((t) => t.name)).not.toContain('get-env');
    expect(tested.tools.map((t) => t.name)).not.toContain('echo');
    expect(tested.hidden).toBeGreaterThan(0);
    const unknown = await runCommand(['filter', 'test', 'everythin'], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('everything');
  }, 60_000);
});

describe.concurrent('filter set', () => {
  it('stores the rules in command-line order, and --clear removes them', async () => {
    const file = writeConfig({ mcp_servers: { everything: SERVERS.everything } });
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const set = await runCommand(['filter', 'set', 'everything', '--exclude', 'get-env', '--include', 'get-*', '--exclude', 'x'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).mcp_servers.everything.filter).toEqual([{ exclude: 'get-env' }, { include: 'get-*' }, { exclude: 'x' }]);
    const tools = JSON.parse((await runCommand(['tools', '--json'], { env })).stdout) as { name: string; group: string }[];
    expect(
      tools
        .filter((t) => t.group === 'server:everything')
        .map((t) => t.name)
        .sort(),
    ).toEqual(
      ['get-annotated-message', 'get-resource-links', 'get-resource-reference', 'get-structured-content', 'get-sum', 'get-tiny-image'].map(
        (n) => `everything__${n}`,
      ),
    );
    expect((await runCommand(['filter', 'set', 'everything', '--clear'], { env })).code).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).mcp_servers.everything.filter).toBeUndefined();
    const nothing = await runCommand(['filter', 'set', 'everything', '--json'], { env });
    expect(nothing.code).toBe(2);
  });
});
