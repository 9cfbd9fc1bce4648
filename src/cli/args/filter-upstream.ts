import type { ServerConfig } from '../../config/schema/schema.js';
import { parsePairs } from '../../config/edits/servers-edit.js';
import { ToolError } from '../../core/errors.js';
import type { FilterRule } from '../../proxy/catalog/filter.js';

/** The one upstream of `filter run` / `filter test`: the command after `--`, or --url. */
export function upstreamConfig(command: string[], url: string | undefined, headers: string[] | undefined, rules: FilterRule[]): ServerConfig {
  if (command.length > 0 && url !== undefined) throw new ToolError('INVALID_INPUT', 'Give either a command after -- or --url, not both.');
  if (command.length === 0 && url === undefined) {
    throw new ToolError('INVALID_INPUT', 'Give the upstream server: a command after -- (e.g. -- npx -y @playwright/mcp) or --url URL.');
  }
  const filter = rules.length ? { filter: rules } : {};
  if (url !== undefined) return { url, headers: parsePairs(headers, 'header'), ...filter };
  // The one command the user typed, wrapped as it is: it gets the whole environment, as it would run alone.
  return { command: command[0]!, args: command.slice(1), inherit_env: true, ...filter };
}
