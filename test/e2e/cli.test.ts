import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, tempDir, spawnTracked, runCli, runCommand } from '../helpers/cli.js';

const ESC = '\u001b[';

function configWith(text: string): { file: string; env: NodeJS.ProcessEnv } {
  const file = join(tempDir(), 'mcpkit.yaml');
  writeFileSync(file, text);
  return { file, env: cleanEnv({ MCPKIT_CONFIG: file }) };
}

describe.concurrent('the CLI as a user runs it', () => {
  it('config path --json says which file and why', async () => {
    const { file, env } = configWith('serve: {}\n');
    const r = await runCommand(['config', 'path', '--json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ path: file, source: 'env', chosen_by: 'MCPKIT_CONFIG', exists: true });
  });

  it('--config beats MCPKIT_CONFIG, and ./mcpkit.yaml is found in the current directory', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'mcpkit.yaml'), 'serve: {}\n');
    const local = await runCommand(['config', 'path'], { cwd: dir });
    expect(local.stdout.trim()).toBe(join(dir, 'mcpkit.yaml'));
    const flagged = await runCommand(['config', 'path', '--config', 'other.yaml'], { cwd: dir, env: cleanEnv({ MCPKIT_CONFIG: '/nope.yaml' }) });
    expect(flagged.stdout.trim()).toBe(join(dir, 'other.yaml'));
  });

  it('config validate lists every problem as path: message and exits 1', async () => {
    const { env } = configWith('mcp_servers:\n  a: { args: [] }\n  b: { command: x, timeout_ms: -5 }\ntool_views:\n  v: { exposure: loud }\n');
    const r = await runCommand(['config', 'validate'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Error \[CONFIG_INVALID\]: Config .* is invalid \(3 problems\):/);
    expect(r.stderr).toMatch(/^ {2}mcp_servers\.a: a server needs either command/m);
    expect(r.stderr).toMatch(/^ {2}mcp_servers\.b\.timeout_ms: /m);
    expect(r.stderr).toMatch(/^ {2}tool_views\.v\.exposure: /m);
    expect(r.stderr).toMatch(/^Hint: /m);
  });

  it('with --json an error is {error: {code, message, details}} on stdout, exit 1', async () => {
    const { env } = configWith('mcp_servers:\n  a: { args: [] }\n');
    const r = await runCommand(['config', 'validate', '--json'], { env });
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string; details: { problems: { path: string }[] } } };
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.details.problems).toEqual([{ path: 'mcp_servers.a', message: expect.stringContaining('command') }]);
  });

  it('names an unset variable and how to fix it, and shows the rest resolved', async () => {
    const { env } = configWith('mcp_servers:\n  gh: { url: "${E2E_UNSET_URL}" }\n  ok: { url: "https://ok.example/mcp" }\n');
    const r = await runCommand(['config', 'show', '--resolved'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('# mcp_servers.gh: cannot be used, shown as written (mcp_servers.gh.url: environment variable E2E_UNSET_URL is not set');
    expect(r.stdout).toContain('url: ${E2E_UNSET_URL}');
    expect(r.stdout).toContain('url: https://ok.example/mcp');
    const validate = await runCommand(['config', 'validate'], { env });
    expect(validate.code).toBe(1); // what a script checks
    expect(validate.stderr).toContain('mcp_servers.gh.url: environment variable E2E_UNSET_URL is not set');
  });

  it.each([
    [['config', 'show', '--bogus'], /Nonexistent flag: --bogus/],
    [['config', 'show', '--resolved=maybe'], /./],
    [['call', 'config_show', 'resolved=maybe'], /resolved= expects true or false/],
    [['call', 'config_show', 'resolve=true'], /Invalid arguments for config_show/],
    [['call', 'config_show', '--args', '{nope'], /--args is not valid JSON/],
    [['call'], /Missing 1 required arg/],
  ])('bad usage %j exits 2 with a message', async (args, message) => {
    const r = await runCommand(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/^Error \[INVALID_INPUT\]/m);
  });

  it('bad usage with --json is a JSON error too', async () => {
    const r = await runCommand(['call', 'config_show', 'resolved=maybe', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'INVALID_INPUT' } });
  });

  it('call runs a tool by MCP name with key=value pairs, --args, or --args - from stdin', async () => {
    const { file, env } = configWith('mcp_servers:\n  e: { command: npx }\n');
    const pairs = await runCommand(['call', 'config_show', 'resolved=true', '--json'], { env });
    expect(pairs.code).toBe(0);
    expect(JSON.parse(pairs.stdout)).toMatchObject({ path: file, resolved: true, config: { mcp_servers: { e: { command: 'npx' } }, serve: {} } });
    const json = await runCommand(['call', 'config_show', '--args', '{"resolved": false}', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ resolved: false, config: { mcp_servers: { e: { command: 'npx' } } } });
    const stdin = await runCommand(['call', 'config_show', '--args', '-', '--json'], { env, input: '{"resolved": true}' });
    expect(JSON.parse(stdin.stdout)).toMatchObject({ resolved: true });
  });

  it('call of an unknown tool suggests the closest names and exits 1', async () => {
    const r = await runCommand(['call', 'config_shw']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error [NOT_FOUND]: No tool named "config_shw".');
    expect(r.stderr).toContain('Did you mean config_show');
  });

  it('tools --json lists name, group, read-only flag, a one-line description and the input schema', async () => {
    const r = await runCommand(['tools', '--json']);
    expect(r.code).toBe(0);
    const tools = JSON.parse(r.stdout) as { name: string; group: string; read_only: boolean; description: string; command: string }[];
    expect(tools.find((t) => t.name === 'config_show')).toEqual({
      name: 'config_show',
      group: 'config',
      command: 'mcpkit config show',
      read_only: true,
      description: expect.not.stringContaining('\n'),
      input_schema: expect.objectContaining({ type: 'object', properties: expect.objectContaining({ resolved: expect.any(Object) }) }),
    });
    const human = await runCommand(['tools']);
    expect(human.stdout).toMatch(/^NAME\s+GROUP\s+READ_ONLY\s+DESCRIPTION/);
  });

  it('config init writes a valid commented file, refuses to overwrite, and --force replaces', async () => {
    const dir = tempDir();
    const env = cleanEnv();
    const first = await runCommand(['config', 'init', '--local'], { cwd: dir, env });
    expect(first.code).toBe(0);
    const file = join(dir, 'mcpkit.yaml');
    expect(readFileSync(file, 'utf8')).toMatch(/^# mcpkit configuration/);
    writeFileSync(file, 'serve: {}\n# mine\n');
    const again = await runCommand(['config', 'init', '--local'], { cwd: dir, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Error [CONFLICT]');
    expect(again.stderr).toContain('--force');
    expect(readFileSync(file, 'utf8')).toBe('serve: {}\n# mine\n');
    const forced = await runCommand(['config', 'init', '--local', '--force', '--json'], { cwd: dir, env });
    expect(JSON.parse(forced.stdout)).toEqual({ path: file, replaced: true });
    const valid = await runCommand(['config', 'validate', '--json'], { cwd: dir, env });
    expect(JSON.parse(valid.stdout)).toMatchObject({ valid: true, exists: true });
  });

  it('config init without --local writes to the user config directory', async () => {
    const env = cleanEnv();
    const r = await runCommand(['config', 'init'], { env, cwd: tempDir() });
    expect(r.code).toBe(0);
    expect(existsSync(join(env.XDG_CONFIG_HOME!, 'mcpkit', 'config.yaml'))).toBe(true);
  });

  it('config show masks secrets unless --reveal', async () => {
    const { env } = configWith('mcp_servers:\n  gh:\n    url: https://example.com/mcp\n    headers: { Authorization: "Bearer ${E2E_TOKEN}" }\n');
    env.E2E_TOKEN = 'tok_123';
    const masked = await runCommand(['config', 'show', '--resolved'], { env });
    expect(masked.code).toBe(0);
    expect(masked.stdout).not.toContain('tok_123');
    expect(masked.stdout).toContain('Authorization: "********"');
    const raw = await runCommand(['config', 'show'], { env });
    expect(raw.stdout).toContain('Bearer ${E2E_TOKEN}');
    const revealed = await runCommand(['config', 'show', '--resolved', '--reveal'], { env });
    expect(revealed.stdout).toContain('Bearer tok_123');
  });

  it('config schema prints a JSON Schema of the file', async () => {
    const r = await runCommand(['config', 'schema', '--json']);
    const schema = JSON.parse(r.stdout) as { properties: Record<string, unknown>; additionalProperties: boolean };
    expect(Object.keys(schema.properties)).toEqual([
      'mcp_servers',
      'tool_views',
      'composite_tools',
      'hooks',
      'pinning',
      'registry',
      'arango',
      'retrieve',
      'daemon',
      'serve',
    ]);
    expect(schema.additionalProperties).toBe(false);
  });

  it('honours NO_COLOR and colours errors only when asked', async () => {
    // NO_COLOR wins over FORCE_COLOR (no-color.org): with both set, a process that would colour prints none.
    const plain = await runCommand(['call', 'nope'], { env: cleanEnv({ NO_COLOR: '1', FORCE_COLOR: '1' }) });
    expect(plain.stderr).toContain('nope');
    expect(plain.stderr).not.toContain(ESC);
    const forced = await runCommand(['call', 'nope'], { env: cleanEnv({ NO_COLOR: undefined, FORCE_COLOR: '1' }) });
    expect(forced.stderr).toContain(ESC);
  });

  it('serve exits by itself when its stdin closes', async () => {
    const child = spawnTracked(process.execPath, [BIN, 'serve'], { env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    child.stdin.end();
    // A serve that hung would never close: the test's own timeout says so (a loaded machine can take
    // more than 10 s to start one, and the file's hook ends a child left running).
    expect(await exited).toBe(0);
    expect(out).toBe('');
  });
});

describe('--help', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, { examples?: string[] }> };
  const ids = Object.keys(manifest.commands);
  // Every command's help in one process (test/fixtures/oclif-lines.mjs: through oclif as bin/run.js
  // runs it), not a process each: the start-up is what a process per command costs. The
  // processes below show that what it prints is what `mcpkit ID --help` prints.
  const helps = new Map<string, { code: number | string; stdout: string }>();
  beforeAll(async () => {
    const lines = ids.map((id) => [...id.split(':'), '--help']);
    const r = await runCli([JSON.stringify(lines)], { entry: join(ROOT, 'test/fixtures/oclif-lines.mjs') });
    expect(r.code, r.stderr).toBe(0);
    (JSON.parse(r.stdout) as { code: number | string; stdout: string }[]).forEach((help, i) => helps.set(ids[i]!, help));
  }, 120_000);

  it.each(ids)('%s has usage and at least one example', (id) => {
    expect(manifest.commands[id]!.examples?.length).toBeGreaterThan(0);
    const r = helps.get(id);
    expect(r?.code).toBe(0);
    expect(r?.stdout).toContain('USAGE');
    expect(r?.stdout).toContain('EXAMPLES');
    expect(r?.stdout).toContain('$ mcpkit');
  });

  // A plain command, and those bin/run.js looks at before oclif (serve, a warm command, retrieve's fast path).
  it.concurrent.for(['config:show', 'serve', 'call', 'view:tools', 'retrieve:search'])(
    'mcpkit %s --help, as a process, prints the same',
    async (id, { expect }) => {
      const r = await runCli([...id.split(':'), '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(helps.get(id)?.stdout);
    },
  );
});
