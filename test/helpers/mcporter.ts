import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, ROOT, spawnTracked, tempDir } from './cli.js';

/** mcporter (a real MCP client CLI from npm, a devDependency), where it is installed. */
export const MCPORTER = join(ROOT, 'node_modules/mcporter/dist/cli.js');
export const hasMcporter = existsSync(MCPORTER);

/**
 * Runs mcporter with one config file holding `servers` (its mcpServers), in a folder of its own
 * (HOME too: its caches and home config stay inside the test's); stdout and stderr together, and
 * how long it took. Killed after 45 s.
 */
export function mcporter(
  servers: Record<string, unknown>,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; ms: number }> {
  const dir = tempDir('mcpkit-test-mcporter-');
  const file = join(dir, 'config', 'mcporter.json');
  mkdirSync(join(dir, 'config'), { recursive: true });
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawnTracked(process.execPath, [MCPORTER, ...args, '--config', file], {
      cwd: dir,
      env: cleanEnv({ HOME: dir, ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', fail);
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, out, ms: Date.now() - started });
    });
  });
}
