import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cleanEnv, runCli, runCommand, tempDir } from '../helpers/cli.js';
import { SERVERS } from '../helpers/upstreams.js';

/** What people type from `claude mcp add` and other CLIs' habits, as mcpkit takes it: a URL as a positional argument, -e and -H, ls, rm and get, version. */
function setUp() {
  const dir = tempDir('mcpkit-habits-');
  const file = join(dir, 'mcpkit.yaml');
  writeFileSync(file, '');
  const env = cleanEnv({ MCPKIT_CONFIG: file });
  const mcpkit = (args: string[]) => runCommand(args, { env, cwd: dir });
  const servers = () => (parse(readFileSync(file, 'utf8')) as { mcp_servers?: Record<string, Record<string, unknown>> } | null)?.mcp_servers ?? {};
  return { file, mcpkit, servers };
}

describe.concurrent('server add, list, show and remove as other CLIs spell them', () => {
  it('a URL after the name is --url; -e and -H are --env and --header', async () => {
    const { mcpkit, servers } = setUp();
    const remote = await mcpkit(['server', 'add', 'linear', 'https://mcp.linear.app/mcp', '-H', 'X-Team=core']);
    expect(remote.code, remote.stderr).toBe(0);
    const local = await mcpkit(['server', 'add', 'memory', '-e', 'MEMORY_FILE_PATH=/tmp/m.json', '--', 'npx', '-y', '@modelcontextprotocol/server-memory']);
    expect(local.code, local.stderr).toBe(0);
    expect(servers()).toEqual({
      linear: { url: 'https://mcp.linear.app/mcp', headers: { 'X-Team': 'core' } },
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/tmp/m.json' } },
    });
  });

  it.each([
    [['server', 'add', 'x', 'npx'], /Unexpected argument "npx".*after "--"/s, /mcpkit server add x -- npx/],
    [['server', 'add', 'x', 'https://a/mcp', '--url', 'https://b/mcp'], /either as an argument or with --url/, undefined],
    [['server', 'add', 'x', 'https://a/mcp', 'https://b/mcp'], /Unexpected argument "https:\/\/a\/mcp"/, undefined],
  ])('%j is refused as usage, the file untouched', async (args, message, hint) => {
    const { file, mcpkit } = setUp();
    const r = await mcpkit(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    if (hint) expect(r.stderr).toMatch(hint);
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('ls, get and rm are list, show and remove', async () => {
    const { mcpkit, servers } = setUp();
    expect((await mcpkit(['server', 'add', 'a', 'https://a.example/mcp'])).code).toBe(0);
    const listed = await mcpkit(['server', 'ls', '--json']);
    expect((JSON.parse(listed.stdout) as { servers: { name: string }[] }).servers.map((s) => s.name)).toEqual(['a']);
    const shown = await mcpkit(['server', 'get', 'a', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'a', target: 'https://a.example/mcp' });
    expect((await mcpkit(['server', 'rm', 'a'])).code).toBe(0);
    expect(servers()).toEqual({});
  });

  it('the usage line says where the command goes', async () => {
    const { stdout } = await setUp().mcpkit(['server', 'add', '--help']);
    expect(stdout).toContain('$ mcpkit server add NAME [URL] [FLAGS] [-- COMMAND ARGS...]');
  });
});

describe.concurrent('mcpkit version', () => {
  it('prints what --version prints, and each part with --json', async () => {
    const env = cleanEnv();
    // --version is bin/run.js's to read (a process); the command's own output is the same in this process.
    const [plain, flag, json] = await Promise.all([
      runCommand(['version'], { env }),
      runCli(['--version'], { env }),
      runCommand(['version', '--json'], { env }),
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(flag.stdout);
    const about = JSON.parse(json.stdout) as Record<string, string>;
    expect(about).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), node: process.versions.node, platform: process.platform, arch: process.arch });
    expect(plain.stdout).toBe(`mcpkit/${about.version} ${about.platform}-${about.arch} node-v${about.node}\n`);
  });
});

describe.concurrent('mcpkit tools NAME: one tool, whole', () => {
  it("mcpkit's own: its whole description and every argument, without starting a server", async () => {
    const { mcpkit, file } = setUp();
    writeFileSync(file, `mcp_servers:\n  broken: { command: /nonexistent/server }\n`);
    const r = await mcpkit(['tools', 'search']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('search  retrieve  read-only  (mcpkit retrieve search)');
    expect(r.stdout).toContain('or how many lines match in each (count)'); // past the first line's summary
    expect(r.stdout).toMatch(/^files_with_matches\s+boolean\s+no\s+false\s+Only the files/m);
    expect(r.stdout).toMatch(/^glob\s+string \| string\[\]\s+no/m);
    expect(r.stderr).not.toContain('broken'); // no upstream was started for it
    const json = JSON.parse((await mcpkit(['tools', 'search', '--json'])).stdout) as { name: string; input_schema: { properties: object } };
    expect(json.name).toBe('search');
    expect(Object.keys(json.input_schema.properties)).toContain('files_with_matches');
  });

  it("an upstream server's tool by its published name", async () => {
    const { mcpkit, file } = setUp();
    writeFileSync(file, `mcp_servers:\n  everything: ${JSON.stringify(SERVERS.everything)}\n`);
    const r = await mcpkit(['tools', 'everything__echo', '--no-daemon']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('everything__echo  server:everything');
    expect(r.stdout).toMatch(/^message\s+string\s+yes/m);
  }, 60_000);

  it('an unknown name is NOT_FOUND with the closest names', async () => {
    const r = await setUp().mcpkit(['tools', 'serch']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error [NOT_FOUND]: No tool named "serch".');
    expect(r.stderr).toContain('Did you mean "search"');
  });
});

describe.concurrent('a mistyped flag is named with the one meant', () => {
  it.each([
    [['server', 'add', 'x', '--comand', 'node'], 'Did you mean --command?'],
    [['retrieve', 'search', 'x', '--limt', '3'], 'Did you mean --limit?'],
    [['config', 'show', '--jsn'], 'Did you mean --json?'],
    [['view', 'list', '--confg', 'x.yaml'], 'Did you mean --config?'],
  ])('%j', async (args, hint) => {
    const r = await setUp().mcpkit(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Nonexistent flag: ${args.find((a) => a.startsWith('--'))}`);
    expect(r.stderr).toContain(hint);
  });
});

describe.concurrent('config validate finds what serve would refuse', () => {
  it('unknown groups and tools, a composite step of no server, a root that does not exist; serve --view refuses the same view', async () => {
    const { mcpkit, file } = setUp();
    writeFileSync(
      file,
      [
        'mcp_servers:\n  a: { command: x }',
        'tool_views:\n  r2: { groups: [registy] }',
        'composite_tools:\n  c:\n    chain:\n      - { tool: b.y }',
        'retrieve:\n  roots: { docs: ./no-such-folder }',
        '',
      ].join('\n'),
    );
    const r = await mcpkit(['config', 'validate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('(3 problems)');
    expect(r.stderr).toContain('tool_views.r2.groups: no mcpkit tool group is named "registy"');
    expect(r.stderr).toContain('composite_tools.c.chain.0.tool: "b.y" names the server "b", which is not in mcp_servers');
    expect(r.stderr).toMatch(/retrieve\.roots\.docs: Root "docs" \(\.\/no-such-folder\) does not exist/);
    const serve = await mcpkit(['serve', '--view', 'r2']);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain('CONFIG_INVALID');
  }, 30_000);
});

describe.concurrent('the shared flags may come before the command, as in gh and git', () => {
  it('mcpkit --config F view create x writes to F; --json before the command gives JSON', async () => {
    const { file } = setUp();
    const env = cleanEnv();
    const created = await runCli(['--config', file, 'view', 'create', 'x'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).tool_views).toHaveProperty('x');
    const listed = await runCli(['--json', `--config=${file}`, 'view', 'list'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(listed.stdout))).toContain('"x"');
  });
});

describe.concurrent('--jq on every command that has --json, as gh has it', () => {
  it('every command with --json takes --jq, and none without', async () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '../../oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, { flags: Record<string, unknown> }>;
    };
    const mismatched = Object.entries(manifest.commands).filter(([, c]) => 'json' in c.flags !== 'jq' in c.flags);
    expect(mismatched.map(([id]) => id)).toEqual([]);
  });

  it('filters the JSON, prints strings raw, and a bad expression is bad usage that prints nothing on stdout', async () => {
    const { file, mcpkit } = setUp();
    expect((await mcpkit(['view', 'create', 'docs'])).code).toBe(0);
    expect((await mcpkit(['view', 'create', 'code'])).code).toBe(0);
    const names = await mcpkit(['view', 'list', '--jq', '.views[].name']);
    expect(names.code, names.stderr).toBe(0);
    expect(names.stdout.split('\n').filter(Boolean).sort()).toEqual(['code', 'docs']);
    // Before the command too, through bin/run.js, as --config and --json.
    const path = await runCli(['--jq', '.path', 'config', 'path', '--config', file], { env: cleanEnv() });
    expect(path.stdout).toBe(`${file}\n`);
    const bad = await mcpkit(['view', 'list', '--jq', '.views |']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('--jq is not a jq expression');
    // An error of the command itself is words on stderr, never JSON on stdout for $(...) to keep.
    const failed = await mcpkit(['view', 'show', 'nope', '--jq', '.name']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toContain('NOT_FOUND');
  });
});
