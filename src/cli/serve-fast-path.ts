import './zod-jitless.js';
import { readFileSync } from 'node:fs';
import { runServe } from '../mcp/run-serve.js';
import { parseServeArgs, serveOptionsOf } from './args/serve-args.js';

/**
 * `mcpkit serve` is what MCP clients start, often and while a user waits; it skips loading oclif
 * (~100 ms here) when its arguments are plain. Returns false to let oclif handle the command line.
 * `taken` is called as soon as the command is this path's, before it serves (bin/run.js keeps the
 * code cache only from such a start: cached-script.ts), and `warm` once serve answered its first
 * tools/call (the cache is made after that, so that it holds what a session runs).
 */
export async function fastServe(argv: readonly string[], binUrl: string, taken: () => void = () => {}, warm: () => void = () => {}): Promise<boolean> {
  const args = parseServeArgs(argv);
  if (!args) return false;
  taken();
  const { version } = JSON.parse(readFileSync(new URL('../package.json', binUrl), 'utf8')) as { version: string };
  await runServe(serveOptionsOf(args, version), { warm });
  return true;
}
