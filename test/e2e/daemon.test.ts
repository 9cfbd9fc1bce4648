import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, runCommand, tempDir, type RunResult } from '../helpers/cli.js';
import { daemonRuntimeDir, type Finished } from '../helpers/daemons.js';
import { packageCopy } from '../helpers/package-copy.js';
import { alive, SERVERS, waitFor } from '../helpers/upstreams.js';

/**
 * mcpkit daemon, as a user meets it: started, asked, stopped, killed, replaced, idle; and the
 * commands that use it print exactly what they print without it.
 */

/**
 * A config and a runtime folder of the test's own. The tests run a few at a time (each is mostly
 * waiting on the processes it starts), so each ends its own daemons when it finishes, pass or
 * fail, through its own context's hook.
 */
function setUp(finished: Finished, config: string, extra: Record<string, string> = {}) {
  const dir = tempDir('mcpkit-test-daemon-');
  const runtimeDir = daemonRuntimeDir(finished, dir);
  const file = join(dir, 'mcpkit.yaml');
  writeFileSync(file, config);
  const env = cleanEnv({ XDG_RUNTIME_DIR: runtimeDir, MCPKIT_CONFIG: file, ...extra });
  const mcpkit = (args: string[], options: { cwd?: string; entry?: string; env?: NodeJS.ProcessEnv } = {}) =>
    runCli(args, { env: options.env ?? env, cwd: options.cwd ?? dir, ...(options.entry ? { entry: options.entry } : {}) });
  /**
   * The same line with --no-daemon, the command doing its own work: through oclif, in this
   * process (the warm line is the process under test; its daemon client lives in bin/run.js).
   */
  const alone = (args: string[], options: { cwd?: string } = {}) => runCommand([...args, '--no-daemon'], { env, cwd: options.cwd ?? dir });
  /**
   * A line whose own work is the point, not the daemon's hop (daemon status, stop and list, a
   * config edit), run in this process: it is a client of the daemon as the process would be, and
   * bin/run.js hands none of these to the daemon.
   */
  const here = (args: string[]) => runCommand(args, { env, cwd: dir });
  // What the daemon says of itself, asked in this process (the daemon is the process under test, not this command).
  const status = async () => JSON.parse((await here(['daemon', 'status', '--json'])).stdout) as DaemonState;
  return { dir, file, env, runtimeDir, mcpkit, here, alone, status };
}

interface DaemonState {
  running: boolean;
  socket: string;
  other_build?: boolean;
  status?: { pid: number; requests: number; upstreams: { name: string; state: string; tools?: number }[]; uptime_s: number; memory: { rss_bytes: number } };
}

const EVERYTHING = `mcp_servers:\n  everything: ${JSON.stringify(SERVERS.everything)}\n`;

/**
 * What a person sees: stdout, stderr and the exit code. Timings differ between any two runs (a
 * search's duration_ms, a server test's milliseconds), and so does a "waiting for ... to answer"
 * notice, which depends on how fast a server starts, not on the daemon.
 */
const seen = (r: RunResult) => ({
  code: r.code,
  stdout: timeless(r.stdout),
  stderr: timeless(r.stderr.replace(/^mcpkit: waiting for .*\n/gm, '')),
});
const timeless = (text: string) => text.replace(/"duration_ms": \d+/g, '"duration_ms": 0').replace(/\b\d+ ms\b/g, 'N ms');

/** `run` over the items three at a time, the results in the items' order. */
async function inTurns<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += 3) results.push(...(await Promise.all(items.slice(i, i + 3).map(run))));
  return results;
}

/**
 * Runs each line through a daemon of its own config (server-everything) and without it, in a
 * tree of files and scripts, and expects the same output, errors and exit code from both; and one
 * daemon request per line. What the test goes on with: its daemon, the tree, and the request
 * count read after the lines (the status request that read it counted).
 */
async function printTheSame(finished: Finished, commands: string[][]) {
  const { dir, env, mcpkit, alone, status } = setUp(finished, EVERYTHING);
  const tree = join(dir, 'tree');
  mkdirSync(join(tree, 'src'), { recursive: true });
  writeFileSync(join(tree, 'src/a.ts'), 'export const needle = 1;\n// another needle here\n');
  writeFileSync(join(tree, 'src/b.md'), '# Notes\nno match\nneedle at the end\n');
  writeFileSync(join(tree, 'sum.ts'), "const s: string = await tools.everything['get-sum']({ a: 2, b: 3 });\nconsole.log('logged');\nreturn { s };\n");
  writeFileSync(join(tree, 'fail.js'), 'await tools.everything.nope({});\n');
  expect((await mcpkit(['daemon', 'start'])).code).toBe(0);
  const before = (await status()).status!.requests;
  // The first line pins the server's tools on first use (the lock file beside the config): every
  // line after it, through the daemon or not, finds them pinned.
  const first = await mcpkit(commands[0]!, { cwd: tree });
  // Each line without the daemon too (--no-daemon, in this process), meanwhile: those touch
  // neither the daemon (the request counts would see it) nor the tree.
  const coldRuns = inTurns(commands, (command) => alone(command, { cwd: tree }));
  coldRuns.catch(() => undefined); // awaited below; a failure is reported there
  const warm = [first, ...(await inTurns(commands.slice(1), (command) => mcpkit(command, { cwd: tree })))];
  // One request per line, and the status request that reads the count.
  const after = (await status()).status!.requests;
  expect(after - before, 'every command went through the daemon').toBe(commands.length + 1);
  const cold = await coldRuns;
  cold.forEach((r, i) => expect(seen(warm[i]!), commands[i]!.join(' ')).toEqual(seen(r)));
  return { mcpkit, env, status, tree, before: after };
}

describe.concurrent('mcpkit daemon', () => {
  it('starts, says what it runs (pid, upstreams, memory), stops; status exits 1 when none runs; listens on a 0600 socket in a 0700 folder, and refuses a folder others may enter', async ({
    onTestFinished,
  }) => {
    const { mcpkit, here, status, runtimeDir, file } = setUp(onTestFinished, EVERYTHING);
    const missing = await runCli(['daemon', 'start', '--config', 'no-such.yaml'], { env: cleanEnv({ XDG_RUNTIME_DIR: tempDir() }), cwd: tempDir() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Error \[CONFIG_NOT_FOUND\]: No config file at .*no-such\.yaml/);

    const none = await here(['daemon', 'status']);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('No mcpkit daemon runs for');

    const started = await mcpkit(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toMatch(/mcpkit daemon started for .*mcpkit\.yaml \(pid \d+\)/);
    const again = await mcpkit(['daemon', 'start', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ already: true });

    expect((await mcpkit(['call', 'echo', 'message=hi'])).stdout).toBe('Echo: hi\n');
    const state = await status();
    expect(state.running).toBe(true);
    expect(state.status!.upstreams).toEqual([expect.objectContaining({ name: 'everything', state: 'ready', tools: expect.any(Number) })]);
    expect(state.status!.memory.rss_bytes).toBeGreaterThan(0);
    // It runs its own entry, not the CLI's: oclif and its command table were a tenth of its CPU.
    expect(readFileSync(`/proc/${state.status!.pid}/cmdline`, 'utf8').split('\0').slice(1, -1)).toEqual([
      join(ROOT, 'dist/daemon/server/entry.js'),
      '--config',
      file,
    ]);
    const text = await here(['daemon', 'status']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/pid \d+, up \d+s/);
    expect(text.stdout).toMatch(/everything\s+ready/);
    expect(statSync(state.socket).isSocket()).toBe(true);
    expect(statSync(state.socket).mode & 0o777).toBe(0o600);
    expect(statSync(join(runtimeDir, 'mcpkit')).mode & 0o777).toBe(0o700);

    const stopped = await here(['daemon', 'stop']);
    expect(stopped.stdout).toBe(`mcpkit daemon stopped (pid ${state.status!.pid}).\n`);
    expect(alive(state.status!.pid)).toBe(false);
    expect(existsSync(state.socket)).toBe(false);
    expect((await here(['daemon', 'stop'])).stdout).toContain('No mcpkit daemon runs');

    chmodSync(join(runtimeDir, 'mcpkit'), 0o755);
    const refused = await mcpkit(['daemon', 'start']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Error \[FILE_ACCESS\]: The daemon's folder .* may be entered by other users \(mode 755\)/);
  }, 90_000);

  it('commands print the same through the daemon as without it: output, errors, exit codes, --json; MCPKIT_NO_DAEMON=1 bypasses it', async ({
    onTestFinished,
  }) => {
    const { mcpkit, env, status, tree, before } = await printTheSame(onTestFinished, [
      ['call', 'echo', 'message=hello'],
      ['call', 'echo', 'message=hello', '--json'],
      ['call', 'echo', '--args', '{"message":"from args"}'],
      ['call', 'get-sum', 'a=2', 'b=3', '--json'],
      ['call', 'no-such-tool'],
      ['call', 'no-such-tool', '--json'],
      ['call', 'echo'],
      ['tools'],
      ['tools', '--json'],
      ['view', 'tools'],
      ['server', 'test', 'everything'],
      ['server', 'test', 'nobody'],
      ['code', 'run', 'sum.ts'],
      ['code', 'run', 'sum.ts', '--json'],
      ['code', 'run', 'fail.js'],
      ['code', 'types'],
    ]);
    // A line the quick parser leaves to oclif (a short flag) is run by the daemon too, in one round
    // trip: no bypass, then a second request from the command run here.
    const counted = (await status()).status!.requests;
    const short = await mcpkit(['call', 'echo', '-a', '{"message":"short"}'], { cwd: tree });
    expect(short.stdout).toBe('Echo: short\n');
    expect((await status()).status!.requests - counted, 'one request for a line oclif parses').toBe(2);
    // MCPKIT_NO_DAEMON=1 bypasses it: the daemon hears only the status request that reads the count.
    const bypassed = await mcpkit(['call', 'echo', 'message=x'], { cwd: tree, env: { ...env, MCPKIT_NO_DAEMON: '1' } });
    expect(bypassed.stdout).toBe('Echo: x\n');
    expect((await status()).status!.requests - before, 'MCPKIT_NO_DAEMON=1 bypasses it').toBe(4);
  }, 240_000);

  it('retrieve commands print the same through the daemon as without it: matches as they stream, a regex in a worker thread, errors, --json', async ({
    onTestFinished,
  }) => {
    await printTheSame(onTestFinished, [
      ['retrieve', 'search', 'needle'],
      ['retrieve', 'search', 'needle', '--json'],
      ['retrieve', 'search', 'needle', '--limit', '0'],
      ['retrieve', 'search', '(', '--regex'],
      // A backreference: the daemon searches it in a worker thread, the one-shot command in its own.
      ['retrieve', 'search', '(e)\\1', '--regex'],
      ['retrieve', 'search', '(e)\\1', '--regex', '--json'],
      ['retrieve', 'search', '(e)\\1', '--regex', '--limit', '0'],
      ['retrieve', 'cat', 'src/b.md'],
      ['retrieve', 'cat', 'src/missing.md'],
      ['retrieve', 'ls'],
      ['retrieve', 'find', '**/*.md', '--json'],
    ]);
  }, 240_000);

  it('compares only what the config depends on: TZ or PATH serve a config that starts no server', async ({ onTestFinished }) => {
    // No stdio server: the time zone and the PATH change nothing it answers.
    const quiet = setUp(onTestFinished, 'retrieve:\n  roots:\n    docs: ./docs\n');
    mkdirSync(join(quiet.dir, 'docs'), { recursive: true });
    writeFileSync(join(quiet.dir, 'docs', 'a.md'), 'needle\n');
    expect((await quiet.mcpkit(['daemon', 'start'])).code).toBe(0);
    const before = (await quiet.status()).status!.requests;
    const found = await quiet.mcpkit(['retrieve', 'search', 'needle', '--repo', 'docs'], {
      env: { ...quiet.env, TZ: 'Pacific/Kiritimati', PATH: `/nowhere:${quiet.env.PATH}` },
    });
    expect(found.stdout).toContain('needle');
    expect((await quiet.status()).status!.requests - before, 'served by the daemon').toBe(2);
  }, 120_000);

  it('compares only what the config depends on: a stdio server starts with PATH, so another PATH runs here; a skipped command says why', async ({
    onTestFinished,
  }) => {
    const served = setUp(onTestFinished, EVERYTHING);
    expect((await served.mcpkit(['daemon', 'start'])).code).toBe(0);
    // Two callers at once, each doing the work itself: one with a log level, one without.
    const otherPath = { ...served.env, PATH: `/nowhere:${served.env.PATH}` };
    const [skipped, silent] = await Promise.all([
      served.mcpkit(['call', 'echo', 'message=hi'], { env: { ...otherPath, MCPKIT_LOG_LEVEL: 'debug' } }),
      served.mcpkit(['call', 'echo', 'message=hi'], { env: otherPath }),
    ]);
    expect(skipped.stdout).toBe('Echo: hi\n');
    expect(skipped.stderr).toMatch(
      /mcpkit: the daemon of this config did not run this command, which runs here instead: these variables differ from the daemon's: PATH/,
    );
    expect(silent.stderr, 'a script without a log level hears nothing').not.toContain('did not run');
  }, 120_000);

  it("a hook's stderr reaches the terminal that made the call, through the daemon as without it; the daemon's log keeps its own lines only", async ({
    onTestFinished,
  }) => {
    const { dir, mcpkit, alone, status } = setUp(onTestFinished, `${EVERYTHING}hooks:\n  pre_call: ./hook.mjs\n`);
    writeFileSync(
      join(dir, 'hook.mjs'),
      "process.stderr.write('hook module loaded\\n');\nexport function pre_call(args, ctx) { console.error(`hook saw ${ctx.upstream_tool} ${args.message}`); }\n",
    );
    const started = JSON.parse((await mcpkit(['daemon', 'start', '--json'])).stdout) as { log: string };
    const before = (await status()).status!.requests;
    const warm = await mcpkit(['call', 'echo', 'message=first']);
    expect(warm.code, warm.stderr).toBe(0);
    expect((await status()).status!.requests - before, 'the call went through the daemon').toBe(2);
    expect(warm.stderr).toContain('hook module loaded\n');
    expect(warm.stderr).toContain('hook saw echo first\n');
    const again = await mcpkit(['call', 'echo', 'message=second']);
    expect(again.stderr).toContain('hook saw echo second\n');
    expect(again.stderr, 'an unchanged module is not loaded again').not.toContain('hook module loaded');
    const cold = await alone(['call', 'echo', 'message=third']);
    expect(cold.stderr).toContain('hook saw echo third\n');
    const log = readFileSync(started.log, 'utf8');
    expect(log).toContain('answering the commands of');
    expect(log).not.toContain('hook saw');
  }, 120_000);

  it('builds the file index of its roots as it starts, before any command searches: status shows it, the log says when it is done', async ({
    onTestFinished,
  }) => {
    const tree = tempDir('mcpkit-test-warm-tree-');
    for (let i = 0; i < 200; i++) writeFileSync(join(tree, `f${i}.txt`), `line ${i}\nneedle ${i}.\n`);
    const { mcpkit, status } = setUp(onTestFinished, `retrieve:\n  roots:\n    tree: ${JSON.stringify(tree)}\n`);
    const started = JSON.parse((await mcpkit(['daemon', 'start', '--json'])).stdout) as { log: string };
    expect(await waitFor(() => readFileSync(started.log, 'utf8').includes('file index built'), 20_000), readFileSync(started.log, 'utf8')).toBe(true);
    expect(readFileSync(started.log, 'utf8')).toMatch(/file index built in \d+ ms: .*\(200 files\)/);
    const cache = (await status()).status as unknown as { cache: { roots: { root: string; files: number; mode: string }[]; pending_files: number } };
    expect(cache.cache.roots).toEqual(expect.arrayContaining([expect.objectContaining({ root: tree, files: 200 })]));
    expect(cache.cache.pending_files).toBe(0);
    // What a person asks for first is answered from that index, as any later search is.
    const found = await mcpkit(['retrieve', 'search', 'needle 17.', '--repo', 'tree', '--json']);
    expect(JSON.parse(found.stdout).result.matches).toEqual([expect.objectContaining({ path: 'tree/f17.txt', line: 2 })]);
  }, 60_000);

  it('a killed daemon: the next command does the work itself and removes the socket', async ({ onTestFinished }) => {
    const { mcpkit, here, status } = setUp(onTestFinished, EVERYTHING);
    const started = await mcpkit(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    const { socket, status: s } = await status();
    expect(s, 'daemon status --json after a start').toBeDefined();
    process.kill(s!.pid, 'SIGKILL');
    await waitFor(() => !alive(s!.pid), 5_000);
    expect(existsSync(socket)).toBe(true);
    const r = await mcpkit(['call', 'echo', 'message=after']);
    expect(r).toMatchObject({ code: 0, stdout: 'Echo: after\n' });
    expect(existsSync(socket)).toBe(false);
    expect((await here(['daemon', 'status'])).code).toBe(1);
    const again = await mcpkit(['daemon', 'start']);
    expect(again.code, again.stderr).toBe(0);
    // Six processes one after another, two of them daemon starts: 60 s ran out at load 20.
  }, 120_000);

  it('a daemon of another build is never used: commands do the work themselves; start (and daemon: auto) replace it', async ({ onTestFinished }) => {
    const { mcpkit, here, status, file } = setUp(onTestFinished, EVERYTHING);
    // Another build of mcpkit: the same code with another build identity.
    const other = packageCopy();
    cpSync(join(ROOT, 'oclif.manifest.json'), join(other, 'oclif.manifest.json'));
    writeFileSync(join(other, 'dist/build.json'), '{"id":"another-build"}\n');
    expect((await mcpkit(['daemon', 'start'], { entry: join(other, 'bin/run.js') })).code).toBe(0);
    const old = await status();
    expect(old).toMatchObject({ running: true, other_build: true });
    expect((await here(['daemon', 'status'])).stdout).toContain('another build than this mcpkit');

    const before = (await status()).status!.requests;
    const [mine, listed] = await Promise.all([mcpkit(['call', 'echo', 'message=mine']), mcpkit(['retrieve', 'ls', '--json'])]);
    expect(mine).toMatchObject({ code: 0, stdout: 'Echo: mine\n' });
    expect(listed.code).toBe(0);
    // Asked (and it answered bypass), but it did no work: no upstream was started in it.
    const after = await status();
    expect(after.status!.upstreams).toEqual([]);
    expect(after.status!.requests - before).toBe(3);

    // daemon: auto replaces it with one of this build, in the background.
    writeFileSync(file, `daemon: auto\n${EVERYTHING}`);
    expect((await mcpkit(['call', 'echo', 'message=again'])).stdout).toBe('Echo: again\n');
    expect(await waitFor(async () => (await status()).other_build !== true && (await status()).running, 20_000, 200)).toBe(true);
    expect(alive(old.status!.pid)).toBe(false);
  }, 90_000);

  it('exits after daemon.idle_minutes without a request, and removes its socket', async ({ onTestFinished }) => {
    const { mcpkit } = setUp(onTestFinished, `daemon:\n  idle_minutes: 0.05\n${EVERYTHING}`);
    // What start says is all this needs: asking for the status would be a request, and reset the clock.
    const start = await mcpkit(['daemon', 'start', '--json']);
    expect(start.code, start.stderr).toBe(0);
    const started = JSON.parse(start.stdout) as { pid: number; log: string };
    const socket = started.log.replace(/\.log$/, '.sock');
    expect(await waitFor(() => !alive(started.pid), 20_000, 100)).toBe(true);
    expect(existsSync(socket)).toBe(false);
    expect(readFileSync(started.log, 'utf8')).toContain('stopping: idle for 0.05 minute(s) (daemon.idle_minutes)');
  }, 60_000);

  it('serves the config as edited: a server added by the CLI is there for the next command; a broken file is reported as without a daemon', async ({
    onTestFinished,
  }) => {
    const { mcpkit, here, alone, status, file } = setUp(onTestFinished, EVERYTHING);
    await mcpkit(['daemon', 'start']);
    expect((await mcpkit(['call', 'echo', 'message=one'])).code).toBe(0);
    const added = await here(['server', 'add', 'memory', '--', SERVERS.memory.command, ...SERVERS.memory.args]);
    expect(added.code, added.stderr).toBe(0);
    const tools = await mcpkit(['tools', '--json']);
    expect((JSON.parse(tools.stdout) as { name: string }[]).map((t) => t.name)).toEqual(expect.arrayContaining(['everything__echo', 'memory__read_graph']));
    expect((await status()).status!.upstreams.map((u) => u.name).sort()).toEqual(['everything', 'memory']);

    writeFileSync(file, `${readFileSync(file, 'utf8')}\nnot: [valid\n`);
    const [broken, cold] = await Promise.all([mcpkit(['call', 'everything__echo', 'message=x']), alone(['call', 'everything__echo', 'message=x'])]);
    expect(broken.code).not.toBe(0);
    expect(seen(broken)).toEqual(seen(cold));
  }, 90_000);

  it('daemon: auto starts it with the first command, which does its own work meanwhile', async ({ onTestFinished }) => {
    const { mcpkit, status } = setUp(onTestFinished, `daemon: auto\n${EVERYTHING}`);
    expect(await mcpkit(['call', 'echo', 'message=first'])).toMatchObject({ code: 0, stdout: 'Echo: first\n' });
    expect(await waitFor(async () => (await status()).running, 20_000, 200)).toBe(true);
    const before = (await status()).status!.requests;
    expect((await mcpkit(['call', 'echo', 'message=second'])).stdout).toBe('Echo: second\n');
    expect((await status()).status!.requests - before).toBe(2);
  }, 60_000);
});

// Its daemons are in a runtime folder of its own, as every test's here: it runs beside the others, not after them.
describe.concurrent('every daemon of yours', () => {
  it('daemon list shows one per config; daemon stop --all stops them all', async ({ onTestFinished }) => {
    const { dir, mcpkit, here } = setUp(onTestFinished, 'mcp_servers: {}\n');
    const second = join(dir, 'second.yaml');
    writeFileSync(second, 'mcp_servers: {}\n');
    expect((await here(['daemon', 'list'])).stdout).toBe('No mcpkit daemon runs.\n');
    for (const args of [
      ['daemon', 'start'],
      ['daemon', 'start', '--config', second],
    ]) {
      const r = await mcpkit(args);
      expect(r.code, r.stderr).toBe(0);
    }
    const listed = JSON.parse((await here(['daemon', 'list', '--json'])).stdout) as { daemons: { config: string; status: { pid: number } }[] };
    expect(listed.daemons.map((d) => d.config)).toEqual([join(dir, 'mcpkit.yaml'), second].sort());
    const stopped = await here(['daemon', 'stop', '--all', '--json']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect((JSON.parse(stopped.stdout) as { stopped: { pid: number }[] }).stopped.map((s) => s.pid).sort()).toEqual(
      listed.daemons.map((d) => d.status.pid).sort(),
    );
    for (const d of listed.daemons) expect(alive(d.status.pid)).toBe(false);
    expect((await here(['daemon', 'ls'])).stdout).toBe('No mcpkit daemon runs.\n');
  }, 60_000);
});
