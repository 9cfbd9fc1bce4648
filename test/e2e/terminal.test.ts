import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, runCommand, tempDir } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { runLinesInOneProcess, type LineRun } from '../helpers/oclif-lines.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * The lines of this file that oclif runs as bin/run.js runs a line no fast path takes (help, mistyped
 * commands, autocomplete's set-up), one after the other in ONE process (helpers/oclif-lines.ts), not a
 * process each: the start-up of a process is most of what each would cost. Its home and cache are
 * its own, for autocomplete's files; nothing the other lines print depends on them.
 */
const oclifHome = tempDir();
const autocompleteEnv = cleanEnv({ HOME: oclifHome, XDG_CACHE_HOME: join(oclifHome, '.cache') });
const HELPS: string[][] = [['help'], ['help', 'config'], ['-h'], ['config', '-h'], ['--help']];
const MISTAKES: [string[], string, string][] = [
  [['retrieve', 'serch', 'foo'], '"retrieve serch" is not an mcpkit command.', '"mcpkit retrieve search"'],
  [['confg', 'path'], '"confg path" is not an mcpkit command.', '"mcpkit config path"'],
  [['serv'], '"serv" is not an mcpkit command.', '"mcpkit serve"'],
];
const JSON_MISTAKE = ['registry', 'lst', '--json'];
const OCLIF_LINES = [...HELPS, ...MISTAKES.map(([a]) => a), JSON_MISTAKE, ['autocomplete', 'bash'], ['autocomplete', 'script', 'bash']];
let oclifRuns: Promise<LineRun[]> | undefined;
async function oclifLine(args: string[]): Promise<LineRun> {
  const at = OCLIF_LINES.findIndex((l) => l.join('\0') === args.join('\0'));
  if (at < 0) throw new Error(`${JSON.stringify(args)} is not among the file's oclif lines`);
  return (await (oclifRuns ??= runLinesInOneProcess(OCLIF_LINES, { env: autocompleteEnv })))[at]!;
}

/** The terminal as its users expect it. */
describe.concurrent('call reports failures like every command', () => {
  const env = cleanEnv({ MCPKIT_CONFIG: writeConfig({ mcp_servers: { everything: SERVERS.everything } }) });

  it('an upstream tool refusing its arguments: Error [CODE] on stderr, nothing on stdout, exit 2', async () => {
    const r = await runCommand(['call', 'get-sum', 'a=1'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Error \[INVALID_INPUT\]: Invalid arguments for everything__get-sum: .*"b"/m);
    const json = await runCommand(['call', 'get-sum', 'a=1', '--json'], { env });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ isError: true, structuredContent: { error: { code: 'INVALID_INPUT' } } });
  }, 30_000);

  it('a key=value that does not fit its type is named as written, not as a flag', async () => {
    const r = await runCommand(['call', 'get-sum', 'a=x', 'b=1'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a= expects a number, got "x".');
  }, 30_000);
});

describe.concurrent('machine-readable output stays pure', () => {
  it('view install: JSON alone on stdout, the hint on stderr; mcpkit by name only when it is on the PATH', async () => {
    const config = writeConfig({ tool_views: { research: {} } });
    const bin = tempDir();
    writeFileSync(join(bin, 'mcpkit'), '#!/bin/sh\n', { mode: 0o755 });
    // In this process: what is asked is the command's output for a PATH, which it reads from its environment.
    const onPath = await runCommand(['view', 'install', 'research', '--client', 'claude'], {
      env: cleanEnv({ MCPKIT_CONFIG: config, PATH: `${bin}:${process.env.PATH}` }),
    });
    expect(onPath.code).toBe(0);
    expect(JSON.parse(onPath.stdout)).toMatchObject({
      mcpServers: { 'mcpkit-research': { command: 'mcpkit', args: ['serve', '--view', 'research', '--config', config] } },
    });
    expect(onPath.stderr).toContain('merge into claude_desktop_config.json');
    // A process of the real bin: a stray write to stdout by it or a dependency would break the JSON.
    const notOnPath = await runCli(['view', 'install', 'research', '--client', 'claude', '--json'], {
      // An empty folder: `npm link` may have put mcpkit in /usr/bin.
      env: cleanEnv({ MCPKIT_CONFIG: config, PATH: tempDir('mcpkit-path-') }),
    });
    const entry = (JSON.parse(notOnPath.stdout) as { snippet: { mcpServers: Record<string, { command: string; args: string[] }> } }).snippet.mcpServers[
      'mcpkit-research'
    ]!;
    expect(entry.command).toBe(process.execPath);
    expect(entry.args).toEqual([BIN, 'serve', '--view', 'research', '--config', config]);
  });

  it('config show prints the file as written, comments kept and secrets masked', async () => {
    const file = join(tempDir(), 'mcpkit.yaml');
    writeFileSync(
      file,
      '# team servers\nmcp_servers:\n  gh:\n    url: https://example.test/mcp\n    headers:\n      Authorization: Bearer literal-secret-123 # rotate monthly\nserve:\n  token: abcdefgh\n',
    );
    const r = await runCommand(['config', 'show'], { env: cleanEnv({ MCPKIT_CONFIG: file }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('# team servers');
    expect(r.stdout).toContain('# rotate monthly');
    expect(r.stdout).not.toContain('literal-secret-123');
    expect(r.stdout).not.toContain('abcdefgh');
  });

  it('config path: the path alone on stdout, why on stderr', async () => {
    const dir = tempDir();
    const r = await runCommand(['config', 'path'], { env: cleanEnv({ MCPKIT_CONFIG: `${dir}/team.yaml` }), cwd: dir });
    expect(r.stdout).toBe(`${dir}/team.yaml\n`);
    expect(r.stderr).toContain('chosen by MCPKIT_CONFIG; the file does not exist');
  });

  it('tools --json lists exactly what serve offers, each with its input schema', async () => {
    const env = cleanEnv({ MCPKIT_CONFIG: writeConfig({}) });
    const listed = JSON.parse((await runCommand(['tools', '--json'], { env })).stdout) as { name: string; input_schema: { type: string } }[];
    for (const tool of listed) expect(tool.input_schema.type).toBe('object');
    expect(listed.map((t) => t.name)).not.toContain('switch_tenant_id'); // an admin tool, off
    // serve as `mcpkit serve --exposure direct` runs it with this environment (its config found
    // through MCPKIT_CONFIG), in this process: what is compared is its listing, not the process.
    const { client } = await serveStdioInProcess({ env, flags: { exposure: 'direct' } });
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

describe.concurrent('serve started by hand', () => {
  it('says on stderr, once, that it waits for an MCP client on stdin', () => {
    // script(1) gives serve a terminal for its stdin, as a person's shell would.
    const r = spawnSync('script', ['-qec', `${process.execPath} ${BIN} serve`, '/dev/null'], { env: cleanEnv(), encoding: 'utf8', timeout: 10_000, input: '' });
    const said = (r.stdout ?? '').match(/waiting for a client/g) ?? [];
    expect(said).toHaveLength(1);
    expect(r.stdout).toContain('Ctrl-C stops it');
  });
});

describe.concurrent('help and mistakes', () => {
  // Every line below through oclif's dispatch, as bin/run.js runs what no fast path takes, in the
  // file's one process of lines (`oclifLine`) rather than a process each. `retrieve serch` runs as a process
  // too and must print the same: bin/run.js first offers it to the daemon's client and retrieve's
  // fast path, which must leave it to oclif, and main()'s `handle` ends it (`mcpkit --help` runs as a
  // process in doc-lines.test.ts).
  it.each(HELPS.map((args) => [args]))('%j shows help, exit 0', async (args) => {
    const r = await oclifLine(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/USAGE|COMMANDS|TOPICS/);
  });

  it.each(MISTAKES)("a mistyped command %j is bad usage in the user's words, with the closest commands", async (args, message, suggestion) => {
    const r = await oclifLine(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Error [INVALID_INPUT]: ${message}`);
    expect(r.stderr).toContain(`Did you mean ${suggestion}`);
    expect(r.stderr).not.toContain(':serch');
  });

  it('a mistyped command as a process: the same words, exit 2', async () => {
    const [args, message] = MISTAKES[0]!;
    const [r, batched] = await Promise.all([runCli(args), oclifLine(args)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Error [INVALID_INPUT]: ${message}`);
    expect(r.stderr).toBe(batched.stderr);
  });

  it('a bad --port is bad usage (exit 2)', async () => {
    const r = await runCli(['serve', '--http', '--port', 'abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Error [INVALID_INPUT]: --port must be a whole number from 0 to 65535, got "abc".');
  });

  it('with --json the mistake is JSON on stdout', async () => {
    const r = await oclifLine(JSON_MISTAKE);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'INVALID_INPUT', hint: expect.stringContaining('mcpkit registry list') } });
  });
});

describe.concurrent('config explains itself', () => {
  it('config show --resolved fills in every default that applies', async () => {
    const env = cleanEnv({ MCPKIT_CONFIG: writeConfig({ serve: { port: 9100 } }), XDG_STATE_HOME: '/state' });
    const r = await runCommand(['config', 'show', '--resolved', '--json'], { env });
    expect(r.code).toBe(0);
    const { config } = JSON.parse(r.stdout) as { config: Record<string, Record<string, unknown>> };
    expect(config.serve).toMatchObject({ port: 9100, host: '127.0.0.1', max_body_bytes: 4 * 1024 * 1024, session_idle_ms: 1_800_000 });
    expect(config.retrieve).toMatchObject({ max_file_bytes: 1024 * 1024, timeout_ms: 30_000 });
    expect(config.registry).toMatchObject({ default: 'official', timeout_ms: 30_000, retries: 3, max_pages: 100 });
    expect(config.arango).toMatchObject({ url: 'http://localhost:8529', database: '_system', backup_dir: '/state/mcpkit/backups' });
    // As written, nothing is added.
    const written = JSON.parse((await runCommand(['config', 'show', '--json'], { env })).stdout) as { config: Record<string, unknown> };
    expect(written.config).toEqual({ serve: { port: 9100 } });
  });
});

describe.concurrent('server commands say what they did and what fixes a mistake', () => {
  it('set-tools refuses a name the server does not offer, --force keeps it, and says what it replaced', async () => {
    const file = writeConfig({ mcp_servers: { memory: { ...SERVERS.memory, tools: { read_graph: { description: 'Read it all' }, search_nodes: {} } } } });
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const before = readFileSync(file, 'utf8');
    const typo = await runCommand(['server', 'set-tools', 'memory', 'read_grahp'], { env });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/Error \[NOT_FOUND\]: Server "memory" has no tool named "read_grahp"/);
    expect(typo.stderr).toContain('Did you mean read_graph?');
    expect(typo.stderr).toContain('--force');
    expect(readFileSync(file, 'utf8')).toBe(before);

    const ok = await runCommand(['server', 'set-tools', 'memory', 'search_nodes', 'open_nodes'], { env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('exposes search_nodes, open_nodes (was: read_graph, search_nodes)');
    expect(ok.stdout).toContain('Dropped the overrides of read_graph');

    const forced = await runCommand(['server', 'set-tools', 'memory', 'future_tool', '--force', '--json'], { env });
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ tools: ['future_tool'], replaced: ['search_nodes', 'open_nodes'], checked: false });
  }, 30_000);

  it('set-tools on a server that cannot be reached keeps the names and says they were not checked', async () => {
    const env = cleanEnv({ MCPKIT_CONFIG: writeConfig({ mcp_servers: { gone: { command: '/nonexistent/server' } } }) });
    const r = await runCommand(['server', 'set-tools', 'gone', 'a_tool'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Names not checked: gone could not be reached');
  });

  it('remove of a server a view uses names the command that frees it', async () => {
    const file = writeConfig({ mcp_servers: { memory: SERVERS.memory }, tool_views: { notes: { servers: ['memory'] } } });
    const before = readFileSync(file, 'utf8');
    const r = await runCommand(['server', 'remove', 'memory'], { env: cleanEnv({ MCPKIT_CONFIG: file }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error [CONFLICT]: Server "memory" is used by view "notes"');
    expect(r.stderr).toContain('mcpkit view remove-server notes memory');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it("list shows a remote's headers as headers, and show prints long values whole", async () => {
    const long = `https://example.com/${'x'.repeat(120)}/mcp`;
    const env = cleanEnv({ MCPKIT_CONFIG: writeConfig({ mcp_servers: { remote: { url: long, headers: { 'X-Team': 'core' } } } }) });
    const list = await runCommand(['server', 'list'], { env });
    expect(list.stdout).toMatch(/^NAME\s.*HEADERS$/m);
    expect(list.stdout).not.toMatch(/\bENV\b/);
    expect(list.stdout).toContain('X-Team=core');
    const show = await runCommand(['server', 'show', 'remote'], { env });
    expect(show.stdout).toContain(long);
  });
});

describe.concurrent('arango build-query needs no database to build', () => {
  it.each([[['--no-execute']], [['--execute=false']]])('%j', async (flag) => {
    const env = cleanEnv({ MCPKIT_CONFIG: writeConfig({}), ARANGO_URL: 'http://127.0.0.1:9' });
    const r = await runCommand(['arango', 'build-query', 'users', '--fields', 'name', ...flag, '--json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      query: expect.stringContaining('FOR doc IN @@collection'),
      bind_vars: { '@collection': 'users' },
      rows: null,
    });
  });
});

describe.concurrent('long waits say what they wait for', () => {
  it('registry retries are announced on stderr, and the final error counts the attempts', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent = createServer().on('connection', (s) => sockets.add(s)); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const env = cleanEnv({ MCPKIT_CONFIG: writeConfig({ registry: { default: 'local', sources: { local: { url } }, timeout_ms: 300, retries: 2 } }) });
      const r = await runCommand(['registry', 'list'], { env });
      expect(r.code).toBe(1);
      expect(r.stderr.match(/registry http:\/\/127\.0\.0\.1:\d+: no answer within 300 ms; retrying in/g)).toHaveLength(2);
      expect(r.stderr).toContain('attempt 3 of 3');
      expect(r.stderr).toMatch(/Error \[TIMEOUT\]: Registry request timed out after 300 ms \(each of 3 attempts\)/);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 30_000);

  it('a remote that refuses both transports is reported by what streamable HTTP said, the SSE fallback after it', async () => {
    const { createServer: createHttpServer } = await import('node:http');
    const refusing = createHttpServer((_req, res) => res.writeHead(404).end('no MCP here'));
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/mcp`;
      const r = await runCommand(['server', 'test', 'x'], { env: cleanEnv({ MCPKIT_CONFIG: writeConfig({ mcp_servers: { x: { url } } }) }) });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'Server "x" is unavailable: Error POSTing to endpoint: no MCP here (the SSE fallback failed too: SSE error: Non-200 status code (404))',
      );
    } finally {
      refusing.closeAllConnections();
      await new Promise((resolve) => refusing.close(resolve));
    }
  }, 30_000);

  it('a server slow to answer is announced once, with when mcpkit gives up, to a person at a terminal; a script hears it with MCPKIT_LOG_LEVEL=info', async () => {
    const config = writeConfig({ mcp_servers: { slow: { ...SERVERS.silent, timeout_ms: 3000 } } });
    const said = /waiting for server slow to answer over stdio \(gives up after 3 s, mcp_servers\.slow\.timeout_ms\)/g;
    // The daemon's: a server each for its two callers, since one call's wait would leave the server
    // known as down to the other; one daemon for both, not one each: under a load of 15 on 2 cores
    // each process costs ~10 s to start, and this test's longest chain is four of them in a row.
    const daemonConfig = writeConfig({ mcp_servers: { slow: { ...SERVERS.silent, timeout_ms: 3000 }, slower: { ...SERVERS.silent, timeout_ms: 3000 } } });
    const saidOfSlower = /waiting for server slower to answer over stdio \(gives up after 3 s, mcp_servers\.slower\.timeout_ms\)/g;
    // script(1) gives the command a terminal for its stderr, as a person's shell would.
    const inTerminal = (command: string, env: NodeJS.ProcessEnv) =>
      new Promise<string>((resolve) => {
        const child = spawn('script', ['-qec', `${process.execPath} ${BIN} ${command}`, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', () => resolve(out));
      });
    // Through the daemon too, which runs the command line for the terminal that asked.
    const runtimeDir = tempDir('mcpkit-run-');
    chmodSync(runtimeDir, 0o700);
    const daemonEnv = cleanEnv({ MCPKIT_CONFIG: daemonConfig, XDG_RUNTIME_DIR: runtimeDir });
    const throughDaemon = async () => {
      expect((await runCli(['daemon', 'start'], { env: daemonEnv })).code).toBe(0);
      try {
        return await Promise.all([runCli(['call', 'slow__anything'], { env: daemonEnv }), inTerminal('call slower__anything', daemonEnv)]);
      } finally {
        // Stopping it is no part of what is asked: in this process, a client of the daemon as any.
        await runCommand(['daemon', 'stop'], { env: daemonEnv });
      }
    };
    const [piped, logged, tty, [viaDaemon, viaDaemonTty]] = await Promise.all([
      runCli(['tools'], { env: cleanEnv({ MCPKIT_CONFIG: config }) }),
      // In this process: what is asked is what MCPKIT_LOG_LEVEL (the line's environment) makes it say on
      // a stderr that is no terminal; `piped`, a process, shows that a process's pipe is known as one.
      runCommand(['tools'], { env: cleanEnv({ MCPKIT_CONFIG: config, MCPKIT_LOG_LEVEL: 'info' }) }),
      inTerminal('tools', cleanEnv({ MCPKIT_CONFIG: config })),
      throughDaemon(),
    ]);
    expect(piped.stderr).not.toMatch(said);
    expect(piped.stderr, 'what the wait came to is still said').toContain('slow');
    expect(logged.stderr.match(said)).toHaveLength(1);
    expect(tty.match(said)).toHaveLength(1);
    expect(viaDaemon.stderr).toContain('Not reachable now: slow');
    expect(viaDaemon.stderr).not.toMatch(said);
    expect(viaDaemonTty.match(saidOfSlower)).toHaveLength(1);
  }, 60_000);
});

describe.concurrent('smart-search ranks written source above generated files', () => {
  it('the file about the question comes first, manifests and lock files last', async () => {
    const dir = tempDir();
    const words = 'config edits are locked while the config is written; edits wait for the lock';
    mkdirSync(join(dir, 'src/config'), { recursive: true });
    writeFileSync(
      join(dir, 'README.md'),
      `# Project\n\n${'Some text about the project and its config.\n'.repeat(200)}Config edits are locked.\n${'More about edits and how the config is used.\n'.repeat(100)}`,
    );
    writeFileSync(
      join(dir, 'oclif.manifest.json'),
      JSON.stringify({ commands: Array.from({ length: 50 }, (_, i) => ({ id: `config edit ${i}`, description: words })) }, null, 2),
    );
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ packages: { 'lock-config-edits': { lock: words } } }));
    writeFileSync(
      join(dir, 'src/config/lock.ts'),
      `/** The lock config edits take, so that two edits never interleave. */\nexport function lockConfig() {\n  // locked while edits run\n}\n`,
    );
    writeFileSync(join(dir, 'src/other.ts'), 'export const x = 1; // the config\n');
    const r = await runCommand(['retrieve', 'smart-search', 'how are config edits locked', '--json'], { env: cleanEnv({ DOCS_ROOT: dir }) });
    const paths = (JSON.parse(r.stdout) as { result: { files: { path: string }[] } }).result.files.map((f) => f.path);
    expect(paths[0]).toBe('docs/src/config/lock.ts');
    expect(paths.indexOf('docs/README.md')).toBeLessThan(paths.indexOf('docs/oclif.manifest.json'));
    expect(paths.slice(-3).sort()).toEqual(['docs/oclif.manifest.json', 'docs/package-lock.json', 'docs/src/other.ts'].sort());
  });
});

describe.concurrent('shell completion (@oclif/plugin-autocomplete)', () => {
  it('bash completes topics, commands written with spaces, and flags', async () => {
    const env = autocompleteEnv;
    // As its instructions go: `autocomplete bash` builds the cache, `autocomplete script bash` is added
    // to .bashrc; the two in order, in the file's process of lines (`oclifLine`: oclif's dispatch, as bin/run.js's).
    const [instructions, setup] = await Promise.all([oclifLine(['autocomplete', 'bash']), oclifLine(['autocomplete', 'script', 'bash'])]);
    expect(instructions!.code).toBe(0);
    expect(instructions!.stdout).toContain('mcpkit autocomplete script bash');
    expect(setup!.code).toBe(0);
    const line = setup!.stdout.trim();
    expect(line).toContain('MCPKIT_AC_BASH_SETUP_PATH=');
    const complete = (words: string[]) => {
      const script = `${line}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mcpkit_autocomplete; echo "\${COMPREPLY[@]}"`;
      return spawnSync('bash', ['-c', script], { env, encoding: 'utf8' }).stdout.trim();
    };
    expect(complete(['mcpkit', 'retrieve', 'se'])).toBe('search');
    expect(complete(['mcpkit', 'config', 'show', '--r'])).toBe('--resolved --reveal');
    expect(complete(['mcpkit', 'ser']).split(' ')).toEqual(expect.arrayContaining(['serve', 'server']));
    // Each command once, by its name: an alias (server ls, rm, get, mv) still runs but is not offered.
    const serverCommands = complete(['mcpkit', 'server', '']).split(' ');
    expect(serverCommands).toEqual(expect.arrayContaining(['list', 'remove', 'show', 'rename']));
    expect(serverCommands.filter((c) => ['ls', 'rm', 'get', 'mv'].includes(c))).toEqual([]);
    expect(new Set(serverCommands).size).toBe(serverCommands.length);
    expect(complete(['mcpkit', 'daemon', 'l'])).toBe('list');
    expect((await runCommand(['server', 'ls'], { env })).code).toBe(0);
  }, 30_000);

  it('a shell it does not know is a usage error (exit 2), as every other one is', async () => {
    const home = tempDir();
    const r = await runCli(['autocomplete', 'fish'], { env: cleanEnv({ HOME: home, XDG_CACHE_HOME: join(home, '.cache') }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Expected fish to be one of: zsh, bash, powershell');
  }, 30_000);
});
