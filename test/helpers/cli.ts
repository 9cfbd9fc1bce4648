import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { afterAll } from 'vitest';

import { ROOT } from './root.js';

export { ROOT };
export const BIN = join(ROOT, 'bin/run.js');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * What a test file made that must not outlive it: temp folders and processes. The runner's own
 * hook removes and ends them after the file, pass or fail: registered here for the file that
 * evaluates this module, and by the setup files (serves-end.ts, file-end.ts) for every file, since
 * the suite's files share their modules (isolate: false). scripts/run-tests.mjs checks after the whole run
 * that nothing was left.
 */
const madeDirs: string[] = [];
const madeChildren = new Set<ChildProcess>();
export async function removeWhatTheFileMade(): Promise<void> {
  await Promise.all([...madeChildren].map(stopChild));
  // Retried: a process a serve ended may still be writing its last files as it exits (ENOTEMPTY
  // on a boxed npm's cache, once even through 5.5 s of retries, on a run slowed to 404 s of
  // vitest). Node waits 100 ms longer at each try: 14 tries are 10.5 s. One that does not end is
  // the litter check's to report.
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 14, retryDelay: 100 });
}
afterAll(removeWhatTheFileMade);

/** Ends a child: SIGTERM (mcpkit then closes its upstreams), SIGKILL if it is still there after 3 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  madeChildren.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

/** A child whose streams the caller asked to be pipes (the others it does not touch). */
export type PipedChild = ChildProcess & { stdin: Writable; stdout: Readable; stderr: Readable };

/** spawn(), and the child is ended after the test file if the test did not end it. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): PipedChild {
  const child = spawn(command, args, options) as PipedChild;
  madeChildren.add(child);
  child.once('exit', () => madeChildren.delete(child));
  return child;
}

export function tempDir(prefix = 'mcpkit-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** An environment with no user config, no colour and no config override, unless a test adds them. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: tempDir('mcpkit-xdg-'), XDG_CACHE_HOME: tempDir('mcpkit-cache-'), NO_COLOR: '1' };
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
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; entry?: string; nodeArgs?: string[] } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawnTracked(process.execPath, [...(options.nodeArgs ?? []), options.entry ?? BIN, ...args], {
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

/** Runs a command to its end and gives its stdout and stderr together (a tool whose report is its output). */
export function outputOf(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawnTracked(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.once('error', fail);
    child.once('close', () => done(text));
  });
}

/**
 * Runs a command line as `runCli` does, but in this process (dist/cli/in-process.js: `call` of an
 * upstream tool and the commands generated from tools by the daemon's runner, every other line
 * through oclif in a captured run with this environment and folder), else as a process: serve,
 * the daemon, and lines that read stdin. For tests of what a command does; what only a process
 * shows (bin/run.js's fast paths, signals, colours on a terminal, stdin) stays with `runCli`.
 */
export async function runCommand(args: string[], options: Parameters<typeof runCli>[1] = {}): Promise<RunResult> {
  const env = options.env ?? cleanEnv();
  const cwd = options.cwd ?? tmpdir();
  // Colours, stdin and another entry point are a process's.
  if (env.FORCE_COLOR !== undefined || args.includes('-') || options.input !== undefined || options.entry !== undefined)
    return runCli(args, { ...options, env, cwd });
  const { runInProcess } = await builtInProcess();
  const r = await runInProcess(args, { env, cwd });
  return r.ran ? { code: r.code, stdout: r.stdout, stderr: r.stderr } : runCli(args, { env, cwd });
}

/**
 * The built module, loaded by Node as the conformance clients load it: oclif's commands are the
 * built ones, and one copy of mcpkit's modules answers both kinds of line. Not through vitest's
 * module runner (its `import()` is rewritten), whose interop with the bundle's CommonJS parts
 * (arangojs) differs from Node's.
 */
export const nativeImport = createRequire(import.meta.url)('./native-import.cjs') as (url: string) => Promise<unknown>;
let built: Promise<typeof import('../../src/cli/in-process.js')> | undefined;
function builtInProcess(): Promise<typeof import('../../src/cli/in-process.js')> {
  return (built ??= nativeImport(pathToFileURL(join(ROOT, 'dist/cli/in-process.js')).href) as Promise<typeof import('../../src/cli/in-process.js')>);
}
