import { existsSync } from 'node:fs';
import { locateConfig } from '../config/locate.js';
import { daemonAllowed, viaDaemon } from './daemon-client.js';
import { daemonPlace } from './daemon-place.js';
import { formatJson, sayWaiting } from './output.js';
import { cliWords, reportFailure } from './tool-runner.js';
import { printUpstreamResult, type UpstreamResult } from './upstream-calls.js';

/**
 * `mcpkit call SERVER_TOOL key=value ...` when mcpkit daemon runs for the config: the call goes
 * to the daemon without oclif's start-up or the tool definitions (most of a warm call's time),
 * and prints as `mcpkit call` prints. Anything else (no daemon, help, flags this does not know,
 * --args from stdin, one of mcpkit's own tools, a daemon that may not do it) returns false and
 * goes through oclif's command, which does the same work the usual way.
 */
export async function fastCall(argv: readonly string[]): Promise<boolean> {
  const parsed = parseCallLine(argv);
  if (!parsed || !daemonAllowed(process.env, false)) return false;
  const location = locateConfig({ flag: parsed.config, env: process.env, cwd: process.cwd() });
  if (!existsSync(daemonPlace(location.path, process.env).socket)) return false;
  try {
    const answer = await viaDaemon(location.path, { op: 'call-upstream', name: parsed.name, base: parsed.base, pairs: parsed.pairs }, { waiting: sayWaiting });
    if (answer.kind !== 'done') return false;
    const result = answer.result as UpstreamResult;
    printUpstreamResult(parsed.name, result, parsed.json);
    if (parsed.json) process.stdout.write(formatJson(result));
  } catch (error) {
    reportFailure(error, { json: parsed.json, words: cliWords('call') });
  }
  return true;
}

interface CallLine {
  name: string;
  pairs: string[];
  base: Record<string, unknown>;
  json: boolean;
  config?: string;
}

/** The plain command lines of `call` (NAME, key=value pairs, --json, --config, --args with a JSON object); undefined for anything else. Pure. */
export function parseCallLine(argv: readonly string[]): CallLine | undefined {
  const [name, ...rest] = argv;
  if (!name || name.startsWith('-')) return undefined;
  const out: CallLine = { name, pairs: [], base: {}, json: false };
  let args: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!;
    if (token === '--json' && !out.json) out.json = true;
    else if (token === '--config' && out.config === undefined && rest[i + 1] !== undefined && !rest[i + 1]!.startsWith('-')) out.config = rest[++i];
    else if (token.startsWith('--config=') && out.config === undefined && token.length > 9) out.config = token.slice(9);
    else if ((token === '--args' || token === '-a') && args === undefined && rest[i + 1] !== undefined) args = rest[++i];
    else if (token.startsWith('--args=') && args === undefined) args = token.slice(7);
    else if (!token.startsWith('-') && token.includes('=')) out.pairs.push(token);
    else return undefined;
  }
  if (args !== undefined) {
    // stdin, or text that is not a JSON object: oclif's command reads or refuses it.
    if (args === '-') return undefined;
    try {
      const value: unknown = JSON.parse(args);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      out.base = value as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  return out;
}
