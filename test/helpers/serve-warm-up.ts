import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './root.js';

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
  const hash = /^\/\/ mcpkit-script ([0-9a-f]{16})\n/.exec(readFileSync(join(cli, 'serve-fast-path.script.cjs'), 'utf8').slice(0, 40))?.[1];
  if (!hash || readdirSync(cli).some((f) => f.startsWith(`serve-fast-path.${hash}.`) && f.endsWith('.v8cache'))) return;
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-warm-up-'));
  try {
    const everything = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    const config = join(dir, 'mcpkit.yaml');
    writeFileSync(config, `mcp_servers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(everything)}, stdio]\n`);
    // The environment the test files' serves get (helpers/cli.ts cleanEnv): the cache is keyed by NODE_OPTIONS.
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: join(dir, 'xdg'), XDG_CACHE_HOME: join(dir, 'cache'), NO_COLOR: '1' };
    delete env.MCPKIT_CONFIG;
    const child = spawn(process.execPath, [join(ROOT, 'bin/run.js'), 'serve', '--config', config], { env, cwd: dir, stdio: ['pipe', 'pipe', 'ignore'] });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const answered = async (id: number) => {
      const deadline = Date.now() + 60_000;
      while (!out.includes(`"id":${id}`) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'warm-up', version: '1' } } });
    await answered(1);
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    await answered(2);
    send({ id: 3, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'warm' } } });
    await answered(3);
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await exited;
    clearTimeout(timer);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
