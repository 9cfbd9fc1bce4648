import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptHash } from '../../src/cli/code-cache-place.js';
import { ROOT } from './root.js';
import { BUNDLE_DIR } from './upstream-bundles.js';

const run = promisify(execFile);

/**
 * One stdio session of the built `mcpkit serve` (initialize, tools/list, a call of
 * server-everything's echo), run before the test files when no code cache of this build's serve
 * script is there yet. V8 keeps the first cache it takes for good (src/cli/cached-script.ts), and
 * a function it lacks is compiled again at every start: made from a session that listed, pinned,
 * scanned and called, the suite's ~130 serves start without compiling those paths again. Left to
 * the first test file's serve, what that serve had run decided it. A failure here fails no test:
 * the serves then make the cache as they would without it.
 */
export async function warmServeCache(): Promise<void> {
  const cli = join(ROOT, 'dist/cli');
  const hash = scriptHash(readFileSync(join(cli, 'serve-fast-path.script.cjs'), 'utf8').slice(0, 40).split('\n', 1)[0]!);
  if (!hash || readdirSync(cli).some((f) => f.startsWith(`serve-fast-path.${hash}.`) && f.endsWith('.v8cache'))) return;
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-warm-up-'));
  try {
    const everything = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    const config = join(dir, 'mcpkit.yaml');
    writeFileSync(config, `mcp_servers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(everything)}, stdio]\n`);
    // The environment the test files' serves get (helpers/cli.ts cleanEnv): the cache is keyed by NODE_OPTIONS.
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: join(dir, 'xdg'), XDG_CACHE_HOME: join(dir, 'cache'), NO_COLOR: '1' };
    delete env.MCPKIT_CONFIG;
    await session([join(ROOT, 'bin/run.js'), 'serve', '--config', config], dir, env, { name: 'everything__echo', arguments: { message: 'warm' } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The same for the daemon's script (src/daemon/server/entry.ts), which the suite's daemons start
 * from some 20 times: a daemon with server-everything that answers a `call` (its upstream started,
 * the call's path) and `tools` (a line oclif runs, from the script too), then stops, its cache made
 * by then. Left to the suite, a daemon that was started and stopped without work (the idle and
 * control tests) could make a thin one that every later daemon of the build kept. Stopped in the
 * end whatever happened, so no daemon outlives the warm-up.
 */
export async function warmDaemonCache(): Promise<void> {
  const cli = join(ROOT, 'dist/cli');
  const hash = scriptHash(readFileSync(join(cli, 'daemon-server.script.cjs'), 'utf8').slice(0, 40).split('\n', 1)[0]!);
  if (!hash || readdirSync(cli).some((f) => f.startsWith(`daemon-server.${hash}.`) && f.endsWith('.v8cache'))) return;
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-warm-up-'));
  const everything = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(config, `mcp_servers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(everything)}, stdio]\n`);
  mkdirSync(join(dir, 'run'), { mode: 0o700 });
  // The environment the test files' daemons get (helpers/cli.ts cleanEnv): the cache is keyed by NODE_OPTIONS.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_RUNTIME_DIR: join(dir, 'run'),
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    MCPKIT_CONFIG: config,
    NO_COLOR: '1',
  };
  const line = (args: string[]) => run(process.execPath, [join(ROOT, 'bin/run.js'), ...args], { cwd: dir, env, timeout: 120_000 }).catch(() => undefined);
  try {
    if (await line(['daemon', 'start'])) for (const args of [['call', 'echo', 'message=warm'], ['tools']]) await line(args);
  } finally {
    await line(['daemon', 'stop']);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The same for the npm reference servers' bundles (upstream-bundles.ts), which the suite starts
 * some 800 times: their loader keeps the cache a second after a start or at its exit, and a
 * first start under load had often not listed by then. Each one whose cache is not there gets a
 * session with a call that changes nothing.
 */
export async function warmUpstreamCaches(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-warm-up-'));
  try {
    const sessions: [string, string[], { name: string; arguments: object }][] = [
      ['server-everything', ['stdio'], { name: 'echo', arguments: { message: 'warm' } }],
      ['server-memory', [], { name: 'read_graph', arguments: {} }],
      ['server-filesystem', [dir], { name: 'list_allowed_directories', arguments: {} }],
    ];
    for (const [name, args, call] of sessions) {
      const loader = join(BUNDLE_DIR, `${name}.cjs`);
      if (!existsSync(loader) || existsSync(join(BUNDLE_DIR, `${name}.body.cjs.${process.versions.v8}.v8cache`))) continue;
      // server-memory keeps its graph where MEMORY_FILE_PATH says: here, not beside its code.
      await session([loader, ...args], dir, { ...process.env, MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }, call);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** initialize, tools/list and `call` in a process of `args`, then its stdin closed and its exit awaited (a minute at most each). */
async function session(args: string[], cwd: string, env: NodeJS.ProcessEnv, call: { name: string; arguments: object }): Promise<void> {
  const child = spawn(process.execPath, args, { env, cwd, stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.once('error', () => undefined);
  // A process that ended early makes a write to its stdin fail (EPIPE): its exit is awaited below all the same.
  child.stdin.on('error', () => undefined);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const answered = async (id: number) => {
    const deadline = Date.now() + 60_000;
    while (!out.includes(`"id":${id}`) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  };
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  try {
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'warm-up', version: '1' } } });
    await answered(1);
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    await answered(2);
    send({ id: 3, method: 'tools/call', params: call });
    await answered(3);
    child.stdin.end();
    await exited;
  } finally {
    clearTimeout(timer);
  }
}
