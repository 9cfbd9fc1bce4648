import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { cleanEnv, tempDir, runCommand } from '../helpers/cli.js';

describe.concurrent('server commands edit the config safely', () => {
  it('add, list, set-tools, set-description, disable, show, remove', async () => {
    const file = join(tempDir(), 'mcpkit.yaml');
    writeFileSync(file, '# my servers\nmcp_servers: {}\n');
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const run = (...args: string[]) => runCommand(args, { env });

    expect((await run('server', 'add', 'everything', '--command', 'npx', '--arg', '-y', '--arg', '@modelcontextprotocol/server-everything')).code).toBe(0);
    expect((await run('server', 'add', 'gh', '--url', 'https://example.com/mcp', '--header', 'Authorization=Bearer ${GH_TOKEN}')).code).toBe(0);
    const list = JSON.parse((await run('server', 'list', '--json')).stdout) as { servers: { name: string; type: string; target: string }[] };
    expect(list.servers.map((s) => [s.name, s.type, s.target])).toEqual([
      ['everything', 'stdio', 'npx -y @modelcontextprotocol/server-everything'],
      ['gh', 'remote', 'https://example.com/mcp'],
    ]);
    expect((await run('server', 'set-tools', 'gh', 'search_code', 'search_issues')).code).toBe(0);
    expect((await run('server', 'set-description', 'gh', 'search_issues', 'Org issues. {original}')).code).toBe(0);
    expect((await run('server', 'disable', 'everything')).code).toBe(0);

    const config = parse(readFileSync(file, 'utf8'));
    expect(config).toEqual({
      mcp_servers: {
        everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], disabled: true },
        gh: {
          url: 'https://example.com/mcp',
          headers: { Authorization: 'Bearer ${GH_TOKEN}' },
          tools: { search_code: {}, search_issues: { description: 'Org issues. {original}' } },
        },
      },
    });
    expect(readFileSync(file, 'utf8')).toMatch(/^# my servers/);
    const shown = JSON.parse((await run('server', 'show', 'gh', '--json')).stdout) as { entry: { headers: Record<string, string> } };
    expect(shown.entry.headers.Authorization).toBe('Bearer ${GH_TOKEN}');

    expect((await run('server', 'remove', 'everything')).code).toBe(0);
    expect(Object.keys(parse(readFileSync(file, 'utf8')).mcp_servers)).toEqual(['gh']);
  });

  it.each([
    [['server', 'add', 'gh', '--url', 'https://other.example'], 1, 'CONFLICT'],
    [['server', 'add', 'x', '--command', 'a', '--url', 'https://b.example'], 2, 'INVALID_INPUT'],
    [['server', 'add', 'x'], 2, 'INVALID_INPUT'],
    [['server', 'add', 'bad name', '--command', 'a'], 2, 'INVALID_INPUT'], // a name the config would refuse: bad usage
    [['server', 'add', 'x', '--command', 'a', '--env', 'NOEQUALS'], 2, 'INVALID_INPUT'],
    [['server', 'remove', 'nope'], 1, 'NOT_FOUND'],
    [['server', 'set-description', 'nope', 'x', 'text'], 1, 'NOT_FOUND'],
    [['server', 'rename-tool', 'gh', 'x', 'bad name'], 2, 'INVALID_INPUT'],
    [['server', 'rename-tool', 'nope', 'x', 'y'], 1, 'NOT_FOUND'],
    [['server', 'set-tools', 'gh'], 2, 'INVALID_INPUT'],
  ])('refuses %j with exit %i and %s, leaving the file byte-identical', async (args, code, errorCode) => {
    const file = join(tempDir(), 'mcpkit.yaml');
    writeFileSync(file, '# keep\nmcp_servers:\n  gh: { url: "https://example.com/mcp" } # remote\n');
    const before = readFileSync(file);
    const r = await runCommand([...args, '--json'], { env: cleanEnv({ MCPKIT_CONFIG: file }) });
    expect(r.code).toBe(code);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: errorCode } });
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe.concurrent('server add NAME -- COMMAND ARGS, as claude mcp add takes it', () => {
  it('takes the words after -- as the command and its arguments, flags among them too', async () => {
    const file = join(tempDir(), 'mcpkit.yaml');
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const added = await runCommand(['server', 'add', 'memory', '--env', 'A=1', '--', 'npx', '-y', '@modelcontextprotocol/server-memory', '--verbose'], { env });
    expect(added.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(
      'mcp_servers:\n  memory:\n    command: npx\n    args:\n      - -y\n      - "@modelcontextprotocol/server-memory"\n      - --verbose\n    env:\n      A: "1"\n',
    );
    const before = readFileSync(file);
    const both = await runCommand(['server', 'add', 'x', '--command', 'node', '--', 'npx'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Give the command either after "--" or with --command, not both.');
    const empty = await runCommand(['server', 'add', 'x', '--'], { env });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('Nothing follows "--"');
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe.concurrent('server test and server import', async () => {
  const { SERVERS, writeConfig } = await import('../helpers/upstreams.js');

  it('server test connects, lists and times a real server', async () => {
    const file = writeConfig({ mcp_servers: { everything: SERVERS.everything } });
    const r = await runCommand(['server', 'test', 'everything', '--json'], { env: cleanEnv({ MCPKIT_CONFIG: file }) });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { ok: boolean; tools: { name: string }[]; prompts: number; connect_and_list_ms: number };
    expect(out.ok).toBe(true);
    expect(out.tools.map((t) => t.name)).toContain('echo');
    expect(out.prompts).toBeGreaterThan(0);
    expect(out.connect_and_list_ms).toBeGreaterThan(0);
  });

  it('server test reports a server that fails to start, with its stderr', async () => {
    const file = writeConfig({
      mcp_servers: { broken: { command: process.execPath, args: ['-e', 'console.error("boom: missing API key"); process.exit(3)'] } },
    });
    const r = await runCommand(['server', 'test', 'broken'], { env: cleanEnv({ MCPKIT_CONFIG: file }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error [UNAVAILABLE]: Server "broken" is unavailable');
    expect(r.stderr).toContain('boom: missing API key');
  });

  it('server import adds what it can and reports the rest', async () => {
    const file = writeConfig({ mcp_servers: { everything: SERVERS.everything } });
    const dir = tempDir();
    const claude = join(dir, 'claude_desktop_config.json');
    writeFileSync(
      claude,
      JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['-y', 'x'] }, everything: { command: 'node' }, 'b a d': { command: 'z' } } }),
    );
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const dry = JSON.parse((await runCommand(['server', 'import', claude, '--dry-run', '--json'], { env })).stdout) as { added: string[] };
    expect(dry.added).toEqual(['fs']);
    expect(Object.keys(parse(readFileSync(file, 'utf8')).mcp_servers)).toEqual(['everything']);
    const r = await runCommand(['server', 'import', claude, '--json'], { env });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { added: string[]; skipped: { name: string }[] };
    expect(out.added).toEqual(['fs']);
    expect(out.skipped.map((s) => s.name).sort()).toEqual(['b a d', 'everything']);
    expect(parse(readFileSync(file, 'utf8')).mcp_servers.fs).toEqual({ command: 'npx', args: ['-y', 'x'] });
    const missing = await runCommand(['server', 'import', join(dir, 'nope.json')], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Error [NOT_FOUND]');
  });

  it('server import writes literal secrets as ${VAR} references, names the variables, and never shows a value', async () => {
    const file = writeConfig({});
    const dir = tempDir();
    const token = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    const claude = join(dir, 'claude_desktop_config.json');
    writeFileSync(
      claude,
      JSON.stringify({
        mcpServers: {
          github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: token } },
          linear: { url: 'https://mcp.linear.app/mcp', headers: { Authorization: 'Bearer lin_api_abcdef123456' } },
        },
      }),
    );
    const env = cleanEnv({ MCPKIT_CONFIG: file, GITHUB_PERSONAL_ACCESS_TOKEN: token });
    const r = await runCommand(['server', 'import', claude], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('GITHUB_PERSONAL_ACCESS_TOKEN  (mcp_servers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN) is set');
    expect(r.stdout).toContain('LINEAR_TOKEN  (mcp_servers.linear.headers.Authorization)');
    expect(r.stdout).toContain('Set LINEAR_TOKEN in the environment of mcpkit');
    const written = readFileSync(file, 'utf8');
    expect(written).not.toContain(token);
    expect(written).not.toContain('lin_api_abcdef123456');
    expect(r.stdout + r.stderr).not.toContain('lin_api_abcdef123456');
    expect(parse(written).mcp_servers.linear.headers).toEqual({ Authorization: 'Bearer ${LINEAR_TOKEN}' });
    expect(parse(written).mcp_servers.github.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_PERSONAL_ACCESS_TOKEN}' });

    const kept = await runCommand(['server', 'import', claude, '--force', '--keep-secrets', '--json'], { env });
    expect(JSON.parse(kept.stdout)).toMatchObject({ replaced: ['github', 'linear'], secrets_moved_to: [] });
    expect(readFileSync(file, 'utf8')).toContain(token);
  });
});

describe.concurrent('server rename-tool and set-description without an allow-list', async () => {
  const { SERVERS, writeConfig } = await import('../helpers/upstreams.js');
  it('rename and describe one tool; every other tool still passes; --reset publishes the upstream name again', async () => {
    const file = writeConfig({ mcp_servers: { everything: SERVERS.everything } });
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const run = async (...args: string[]) => {
      const r = await runCommand(args, { env });
      expect(r.code, r.stderr).toBe(0);
      return r;
    };
    await run('server', 'rename-tool', 'everything', 'echo', 'say');
    const described = JSON.parse((await run('server', 'set-description', 'everything', 'echo', 'Ours. {original}', '--json')).stdout) as {
      written_under: string;
    };
    expect(described.written_under).toBe('mcp_servers.everything.overrides');
    expect(parse(readFileSync(file, 'utf8')).mcp_servers.everything.overrides).toEqual({ echo: { name: 'say', description: 'Ours. {original}' } });
    const tools = JSON.parse((await run('tools', '--json')).stdout) as { name: string; description: string }[];
    const names = tools.map((t) => t.name);
    expect(names).toContain('everything__say');
    expect(names).not.toContain('everything__echo');
    expect(names).toContain('everything__get-sum'); // no allow-list: the other tools pass
    expect(tools.find((t) => t.name === 'everything__say')!.description).toMatch(/^Ours\. /);
    expect((await run('call', 'everything__say', 'message=hi')).stdout).toBe('Echo: hi\n');
    // The bare name is enough where one server has it; the upstream's own name is not published.
    expect((await run('call', 'say', 'message=hi')).stdout).toBe('Echo: hi\n');
    expect((await runCommand(['call', 'echo', 'message=hi'], { env })).code).not.toBe(0);

    await run('server', 'rename-tool', 'everything', 'echo', '--reset');
    expect(parse(readFileSync(file, 'utf8')).mcp_servers.everything.overrides).toEqual({ echo: { description: 'Ours. {original}' } });
    const bad = await runCommand(['server', 'rename-tool', 'everything', 'echo', 'has space'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('a tool name is 1-64 letters');
    const both = await runCommand(['server', 'rename-tool', 'everything', 'echo'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Give the new name, or --reset.');
  });
});

describe.concurrent('server_add over MCP speaks MCP, in the terminal speaks flags', async () => {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const { BIN } = await import('../helpers/cli.js');

  it('takes env and headers as objects over MCP and as KEY=VALUE flags in a terminal; errors name fields or flags', async () => {
    const file = join(tempDir(), 'mcpkit.yaml');
    writeFileSync(file, 'mcp_servers: {}\n');
    // Approving, as a person would: a client without elicitation is refused (test/mcp/agent-commands.test.ts).
    const client = new Client({ name: 'e2e', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { approve: true } }));
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve'],
        env: cleanEnv({ MCPKIT_CONFIG: file }) as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    try {
      const added = await client.callTool({
        name: 'server_add',
        arguments: { name: 'mem', command: 'node', env: { MEMORY_FILE_PATH: '/tmp/m.json', DEBUG: '1' } },
      });
      expect(added.isError).toBeFalsy();
      const both = await client.callTool({ name: 'server_add', arguments: { name: 'x', command: 'a', url: 'https://b.example' } });
      const error = (both.structuredContent as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toBe('Give exactly one of "command" (a local stdio server) or "url" (a remote server).');
      const listed = await client.callTool({ name: 'server_add', arguments: { name: 'y', command: 'a', env: ['A=1'] } });
      expect((listed.structuredContent as { error: { code: string } }).error.code).toBe('INVALID_INPUT'); // a map, not KEY=VALUE strings
    } finally {
      await client.close();
    }
    // An agent's stdio server runs in a box with the network wherever bubblewrap can make one.
    const { hostFacts } = await import('../../src/proxy/sandbox/host-facts.js');
    expect(parse(readFileSync(file, 'utf8')).mcp_servers.mem).toEqual({
      command: 'node',
      env: { MEMORY_FILE_PATH: '/tmp/m.json', DEBUG: '1' },
      ...(hostFacts(process.env).bwrap ? { sandbox: { network: true } } : {}),
      added_by: 'agent',
    });

    const env = cleanEnv({ MCPKIT_CONFIG: file });
    expect((await runCommand(['server', 'add', 'gh', '--url', 'https://example.com/mcp', '--header', 'A=1', '--header', 'B=2=3'], { env })).code).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).mcp_servers.gh.headers).toEqual({ A: '1', B: '2=3' });
    const cli = await runCommand(['server', 'add', 'x', '--command', 'a', '--url', 'https://b.example'], { env });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('Give exactly one of --command (a local stdio server) or --url (a remote server).');
    expect(cli.stderr).toContain('Run "mcpkit server add --help".');
  });
});

describe.concurrent('server add keeps secrets out of the file unless asked', () => {
  it.each([
    [
      ['--url', 'https://h.example/mcp', '--header', 'Authorization=Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
      'mcp_servers.gh.headers.Authorization',
      'GH_TOKEN',
    ],
    [['-e', 'GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789', '--', 'npx', 'server'], 'mcp_servers.gh.env.GITHUB_TOKEN', 'GITHUB_TOKEN'],
    [['--', 'npx', 'server', '--api-key=sk-abcdefghijklmnopqrstuvwx'], 'mcp_servers.gh.args.1', 'GH_TOKEN'],
    [['--url', 'https://h.example/mcp', '--client-id', 'app', '--client-secret', 'plain-secret-value'], 'mcp_servers.gh.auth.client_secret', 'CLIENT_SECRET'],
  ])('%j is refused, naming the variable to use, the file byte-for-byte unchanged', async (flags, path, variable) => {
    const file = join(tempDir(), 'mcpkit.yaml');
    writeFileSync(file, '# mine\nmcp_servers: {}\n');
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const r = await runCommand(['server', 'add', 'gh', ...flags], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Error [INVALID_INPUT]: ${path} would keep what looks like a secret in the config file, in plain text.`);
    expect(r.stderr).toContain(`\${${variable}}`);
    expect(r.stderr).toContain('--literal-secrets');
    expect(r.stderr).not.toMatch(/ghp_abc|sk-abc|plain-secret-value/); // the message never repeats the secret
    expect(readFileSync(file, 'utf8')).toBe('# mine\nmcp_servers: {}\n');
  });

  it('--literal-secrets stores it as written; a ${VAR} needs nothing', async () => {
    const file = join(tempDir(), 'mcpkit.yaml');
    writeFileSync(file, 'mcp_servers: {}\n');
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const token = 'Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    expect(
      (await runCommand(['server', 'add', 'a', '--url', 'https://h.example/mcp', '-H', `Authorization=${token}`, '--literal-secrets'], { env })).code,
    ).toBe(0);
    expect((await runCommand(['server', 'add', 'b', '--url', 'https://h.example/mcp', '-H', 'Authorization=Bearer ${B_TOKEN}'], { env })).code).toBe(0);
    const servers = parse(readFileSync(file, 'utf8')).mcp_servers;
    expect(servers.a.headers).toEqual({ Authorization: token });
    expect(servers.b.headers).toEqual({ Authorization: 'Bearer ${B_TOKEN}' });
  });
});

describe.concurrent('server import understands the client it reads', () => {
  it("a VS Code .vscode/mcp.json with comments: ${input:...}, ${env:...} and ${workspaceFolder} in mcpkit's words", async () => {
    const project = tempDir();
    mkdirSync(join(project, '.vscode'));
    writeFileSync(
      join(project, '.vscode/mcp.json'),
      `{
  // comments and trailing commas, as VS Code allows
  "inputs": [{ "type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true }],
  "servers": {
    "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": { "Authorization": "Bearer \${input:gh-token}" } },
    "files": { "command": "npx", "args": ["-y", "pkg", "\${workspaceFolder}", "\${env:HOME}/notes"] },
    "picker": { "command": "x", "args": ["\${command:pickFile}"] },
    "local": { "command": "node", "args": ["server.js"] },
  },
}
`,
    );
    const file = join(project, 'mcpkit.yaml');
    writeFileSync(file, 'mcp_servers: {}\n');
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const r = await runCommand(['server', 'import', '.vscode/mcp.json', '--json'], { env, cwd: project });
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { client: string; added: string[]; skipped: { name: string; reason: string }[]; inputs_to_set: unknown[] };
    expect(body).toMatchObject({ client: 'vscode', added: ['github', 'files', 'local'] });
    expect(body.skipped).toEqual([{ name: 'picker', reason: 'it uses ${command:pickFile}, which only VS Code can fill in' }]);
    expect(body.inputs_to_set).toEqual([{ variable: 'GH_TOKEN', input: 'gh-token', description: 'GitHub token' }]);
    expect(parse(readFileSync(file, 'utf8')).mcp_servers).toMatchObject({
      github: { url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${GH_TOKEN}' } },
      files: { command: 'npx', args: ['-y', 'pkg', project, '${HOME}/notes'] },
      // VS Code runs a project's server in the workspace: its relative script keeps that folder.
      local: { command: 'node', args: ['server.js'], cwd: project },
    });
    expect(parse(readFileSync(file, 'utf8')).mcp_servers.files.cwd).toBeUndefined();
    // What serve would do with it: the config is valid once GH_TOKEN is set (HOME is).
    expect((await runCommand(['config', 'validate'], { env: { ...env, GH_TOKEN: 't' }, cwd: project })).code).toBe(0);
  });
});
