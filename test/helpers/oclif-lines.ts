import { join } from 'node:path';
import { ROOT, runCli } from './cli.js';

/** What one line printed and how it ended: its exit code, or `threw: MESSAGE` where oclif's `handle` would end the process. */
export interface LineRun {
  argv: string[];
  code: number | string;
  stdout: string;
  stderr: string;
}

/**
 * Command lines run one after the other in ONE process of their own (test/fixtures/oclif-lines.mjs:
 * each through oclif's dispatch as bin/run.js runs a line it has no fast path for), with this
 * environment and folder: what a process per line would print, for the start-up of one. For lines
 * a process must run (stdin, argv, signals, the real stdout and environment: a native module that
 * reads the process's own, as the keyring's does) but that need no process each.
 */
export async function runLinesInOneProcess(lines: string[][], options: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<LineRun[]> {
  const r = await runCli([JSON.stringify(lines)], { ...options, entry: join(ROOT, 'test/fixtures/oclif-lines.mjs') });
  if (r.code !== 0) throw new Error(`the lines' process ended with ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as LineRun[];
}
