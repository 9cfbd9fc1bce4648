import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const BIN = join(ROOT, 'bin/run.js');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function tempDir(prefix = 'mcpkit-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** An environment with no user config, no colour and no config override, unless a test adds them. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: tempDir('mcpkit-xdg-'), NO_COLOR: '1' };
  delete env.MCPKIT_CONFIG;
  delete env.FORCE_COLOR;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Entry that runs every command through oclif, bypassing bin/run.js's fast paths (for parity tests). */
export const THROUGH_OCLIF = join(ROOT, 'test/fixtures/through-oclif.mjs');

/** Runs the built CLI as a child process, the way a user's shell would. */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; entry?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.entry ?? BIN, ...args], {
      env: options.env ?? cleanEnv(),
      cwd: options.cwd ?? tmpdir(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
