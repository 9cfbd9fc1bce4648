import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCommand, tempDir } from '../helpers/cli.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

describe.concurrent('view commands', () => {
  it('create, add-server, set-tools, set-exposure, list, tools, install, remove-server, delete', async () => {
    const file = writeConfig({ mcp_servers: { everything: SERVERS.everything, memory: { ...SERVERS.memory, disabled: true } } });
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const run = async (...args: string[]) => {
      const r = await runCommand(args, { env });
      expect(r.code, r.stderr).toBe(0);
      return r;
    };
    await run('view', 'create', 'lean', '--description', 'Echo only', '--group', 'config');
    await run('view', 'add-server', 'lean', 'everything');
    await run('view', 'set-tools', 'lean', 'everything', 'echo', 'get-sum');
    expect(parse(readFileSync(file, 'utf8')).tool_views).toEqual({
      // No exposure written: the default (auto) applies.
      lean: { description: 'Echo only', groups: ['config'], servers: { everything: { tools: { echo: {}, 'get-sum': {} } } } },
    });
    const list = JSON.parse((await run('view', 'list', '--json')).stdout) as { views: { name: string; servers: string[] }[] };
    expect(list.views).toEqual([{ name: 'lean', description: 'Echo only', exposure: 'auto', servers: ['everything'], groups: ['config'] }]);

    // Six tools fit the default budget: under auto they are all listed.
    const direct = JSON.parse((await run('view', 'tools', 'lean', '--json')).stdout) as {
      tools: { name: string }[];
      tokens_estimate: number;
      list_bytes: number;
      listing: string;
      hidden: { server: string; tool: string; why: string }[];
    };
    expect(direct.tools.map((t) => t.name)).toEqual(['config_path', 'config_show', 'config_validate', 'config_schema', 'echo', 'get-sum']);
    // Every other tool of the server is there, with the rule that hides it.
    expect(direct.hidden).toContainEqual({
      server: 'everything',
      tool: 'get-env',
      why: 'not among the view\'s tools of this server (add "get-env" to serve it)',
    });
    expect(direct.hidden.map((h) => h.tool)).not.toContain('echo');
    expect((await run('view', 'tools', 'lean')).stdout).toContain("- get-env of server everything is hidden: not among the view's tools of this server");
    expect(direct.listing).toBe('direct');
    expect(direct.tokens_estimate).toBe(Math.ceil(direct.list_bytes / 4));

    await run('view', 'set-exposure', 'lean', 'search');
    const search = JSON.parse((await run('view', 'tools', 'lean', '--json')).stdout) as {
      tools: { name: string }[];
      catalog_size: number;
      tokens_estimate: number;
    };
    expect(search.tools.map((t) => t.name)).toEqual(['lean_search_tools', 'lean_describe_tool', 'lean_call_tool']);
    expect(search.catalog_size).toBe(6);

    const install = JSON.parse(
      (await runCommand(['view', 'install', 'lean', '--client', 'claude', '--json'], { env: { ...env, PATH: tempDir('mcpkit-path-') } })).stdout,
    ) as {
      snippet: unknown;
    };
    // mcpkit is not on this test's PATH (an empty folder: `npm link` may have put it in /usr/bin): the snippet
    // starts this install by absolute path (terminal.test.ts covers both).
    expect(install.snippet).toEqual({ mcpServers: { 'mcpkit-lean': { command: process.execPath, args: [BIN, 'serve', '--view', 'lean', '--config', file] } } });

    await run('view', 'remove-server', 'lean', 'everything');
    await run('view', 'delete', 'lean');
    expect(parse(readFileSync(file, 'utf8')).tool_views).toEqual({});
  });

  it.each([
    [['view', 'add-server', 'nope', 'everything'], 1, 'NOT_FOUND'],
    [['view', 'add-server', 'v', 'ghost'], 1, 'NOT_FOUND'],
    [['view', 'create', 'v'], 1, 'CONFLICT'],
    [['view', 'set-exposure', 'v', 'loud'], 2, 'INVALID_INPUT'],
    [['view', 'tools', 'nope'], 1, 'NOT_FOUND'],
    // A name the server does not publish would hide every tool of it from the view.
    [['view', 'add-server', 'w', 'everything', '--tools', 'ecko'], 1, 'NOT_FOUND'],
    [['view', 'set-tools', 'v', 'everything', 'echo', 'nonexistent_tool'], 1, 'NOT_FOUND'],
  ])('refuses %j (exit %i, %s), file unchanged', async (args, code, errorCode) => {
    const file = writeConfig({ mcp_servers: { everything: SERVERS.everything }, tool_views: { v: { servers: ['everything'] }, w: {} } });
    writeFileSync(file, `# mine\n${readFileSync(file, 'utf8')}`);
    const before = readFileSync(file);
    const r = await runCommand([...args, '--json'], { env: cleanEnv({ MCPKIT_CONFIG: file }) });
    expect(r.code).toBe(code);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: errorCode } });
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("view create --read-only: the view serves only tools that declare readOnlyHint, its servers' and mcpkit's", async () => {
    const file = writeConfig({ mcp_servers: { memory: SERVERS.memory } });
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const created = await runCommand(['view', 'create', 'research', '--read-only', '--group', 'config'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect((await runCommand(['view', 'add-server', 'research', 'memory'], { env })).code).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).tool_views.research).toEqual({ read_only: true, groups: ['config'], servers: ['memory'] });
    const tools = JSON.parse((await runCommand(['view', 'tools', 'research', '--json'], { env })).stdout) as { tools: { name: string }[] };
    const names = tools.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_graph', 'search_nodes', 'config_show']));
    for (const writer of ['create_entities', 'delete_entities', 'add_observations']) expect(names).not.toContain(writer);
  }, 30_000);

  it('view install for Claude Code, and every client told the variables the config needs', async () => {
    const file = writeConfig({
      mcp_servers: { gh: { url: 'https://gh.example/mcp', headers: { Authorization: 'Bearer ${GH_TOKEN}' } } },
      tool_views: { r: { servers: ['gh'] } },
    });
    const env = cleanEnv({ MCPKIT_CONFIG: file, GH_TOKEN: 'the-token-value' });
    const code = await runCommand(['view', 'install', 'r', '--client', 'claude-code'], { env });
    expect(code.code, code.stderr).toBe(0);
    expect(JSON.parse(code.stdout).mcpServers['mcpkit-r']).toMatchObject({ type: 'stdio', env: { GH_TOKEN: '${GH_TOKEN}' } });
    expect(code.stderr).toContain("claude mcp add --scope project -e 'GH_TOKEN=${GH_TOKEN}' mcpkit-r -- ");
    const desktop = await runCommand(['view', 'install', 'r', '--client', 'claude', '--json'], { env });
    expect(JSON.parse(desktop.stdout)).toMatchObject({ env_needed: ['GH_TOKEN'], fill_in: ['GH_TOKEN'] });
    expect(desktop.stdout).not.toContain('the-token-value'); // a secret is never printed for pasting
  });

  it('a tool name the server does not publish: the closest names in the error; --force keeps it; --pin says which pins it replaced', async () => {
    const file = writeConfig({ mcp_servers: { everything: SERVERS.everything }, tool_views: { v: { servers: ['everything'], pin: ['echo', 'get-sum'] } } });
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const typo = await runCommand(['view', 'set-tools', 'v', 'everything', 'ecko'], { env });
    expect(typo.stderr).toContain('Error [NOT_FOUND]: Server "everything" has no tool named "ecko" (after its own rules and renames).');
    expect(typo.stderr).toContain('Did you mean echo?');
    const forced = await runCommand(['view', 'set-tools', 'v', 'everything', 'ecko', '--force'], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).tool_views.v.servers.everything.tools).toEqual({ ecko: {} });

    // A pin is checked against what the view publishes: `ecko` is all it serves now.
    const before = readFileSync(file, 'utf8');
    const unknownPin = await runCommand(['view', 'set-exposure', 'v', 'auto', '--pin', 'echo'], { env });
    expect(unknownPin.code).toBe(1);
    expect(unknownPin.stderr).toContain('Error [NOT_FOUND]: View "v" publishes no tool named "echo".');
    expect(unknownPin.stderr).toContain('"mcpkit view tools v" lists what it publishes; pass --force to keep the pins anyway.');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect((await runCommand(['view', 'set-tools', 'v', 'everything', '--all'], { env })).code).toBe(0);
    const typoPin = await runCommand(['view', 'set-exposure', 'v', 'auto', '--pin', 'get-summ', '--json'], { env });
    expect(JSON.parse(typoPin.stdout).error).toMatchObject({ code: 'NOT_FOUND', details: { unknown: ['get-summ'], similar: ['get-sum'] } });
    const pinned = await runCommand(['view', 'set-exposure', 'v', 'auto', '--pin', 'echo'], { env });
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(pinned.stdout).toContain('--pin replaced the pins echo, get-sum');
    expect(parse(readFileSync(file, 'utf8')).tool_views.v.pin).toEqual(['echo']);
    // The same pins again replace nothing.
    expect((await runCommand(['view', 'set-exposure', 'v', 'auto', '--pin', 'echo'], { env })).stdout).not.toContain('replaced');
    const forcedPin = await runCommand(['view', 'set-exposure', 'v', 'auto', '--pin', 'echo', '--pin', 'ecko', '--force'], { env });
    expect(forcedPin.code, forcedPin.stderr).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).tool_views.v.pin).toEqual(['echo', 'ecko']);
  });
});
