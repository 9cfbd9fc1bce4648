import { readFileSync } from 'node:fs';
import { runServe } from '../mcp/run-serve.js';
import { parseServeArgs, serveOptionsOf } from './args/serve-args.js';

/**
 * `mcpkit serve` is what MCP clients start, often and while a user waits; it skips loading oclif
 * (~100 ms here) when its arguments are plain. Returns false to let oclif handle the command line.
 */
export async function fastServe(argv: readonly string[], binUrl: string): Promise<boolean> {
  const args = parseServeArgs(argv);
  if (!args) return false;
  const { version } = JSON.parse(readFileSync(new URL('../package.json', binUrl), 'utf8')) as { version: string };
  await runServe(serveOptionsOf(args, version));
  return true;
}
