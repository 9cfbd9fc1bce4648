import type { z } from 'zod';
import { ToolError } from '../core/errors.js';

/** One thing wrong with a config, as `path: message`. */
export interface ConfigProblem {
  path: string;
  message: string;
}

export function problemsFromZod(error: z.ZodError): ConfigProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.map(String).join('.') : '(root)';
    // A bad record key says only "Invalid key in record"; the reason is in the nested issues.
    if (issue.code === 'invalid_key' && issue.issues.length) {
      return { path, message: `invalid name: ${issue.issues.map((i) => i.message).join('; ')}` };
    }
    return { path, message: issue.message };
  });
}

export function formatProblems(problems: readonly ConfigProblem[]): string {
  return problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
}

export function configInvalid(
  file: string,
  problems: readonly ConfigProblem[],
  lead = 'is invalid',
  hint = 'Fix the file by hand or with mcpkit\'s config commands; "mcpkit config validate" lists every problem.',
): ToolError {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return new ToolError('CONFIG_INVALID', `Config ${file} ${lead} (${count}):\n${formatProblems(problems)}`, {
    details: { file, problems },
    hint,
  });
}

const UNIT_WORDS: Record<string, string> = { mcp_servers: 'Server', tool_views: 'View', composite_tools: 'Composite tool' };

/** "Server "github"" for `mcp_servers.github`, "The arango section" for `arango`. */
export function unitName(unit: string): string {
  const [top, name] = unit.split('.');
  return name === undefined ? `The ${top} section of the config` : `${UNIT_WORDS[top!] ?? top} "${name}"`;
}

/** What serve logs of a part of the config set aside for its problems (at start, and when a reload sets it aside). */
export function setAsideWarning(unit: string, lines: readonly string[]): string {
  return `${unitName(unit)} cannot be used; the rest is served:\n${lines.map((l) => `  ${l}`).join('\n')}`;
}

/**
 * Refuses to use a part of the config that was set aside for its problems (McpkitConfig.unusable),
 * naming them; the rest of the config keeps working.
 */
export function requireUsable(config: { unusable?: Readonly<Record<string, readonly string[]>> }, unit: string): void {
  const lines = config.unusable?.[unit];
  if (!lines) return;
  throw new ToolError('CONFIG_INVALID', `${unitName(unit)} cannot be used:\n${lines.map((l) => `  ${l}`).join('\n')}`, {
    details: { unit, problems: lines },
    hint: 'Fix it in the config ("mcpkit config validate" lists every problem); everything else keeps working meanwhile.',
  });
}
