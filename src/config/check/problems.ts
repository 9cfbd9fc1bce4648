import type { z } from 'zod';
import { ToolError } from '../../core/errors.js';
import { closestNames } from '../../core/suggest.js';

/** One thing wrong with a config, as `path: message`. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/** A config's problems in words; with the schema, a key it does not know is named with the closest keys it does (`comand`: command). */
export function problemsFromZod(error: z.ZodError, schema?: z.ZodType): ConfigProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.map(String).join('.') : '(root)';
    // A bad record key says only "Invalid key in record"; the reason is in the nested issues.
    if (issue.code === 'invalid_key' && issue.issues.length) {
      return { path, message: `invalid name: ${issue.issues.map((i) => i.message).join('; ')}` };
    }
    if (issue.code === 'unrecognized_keys' && schema) {
      const known = keysAt(schema, issue.path);
      const guesses = issue.keys.map((key) => [key, closestNames(key, known, 1)[0]] as const).filter(([, guess]) => guess);
      const said =
        guesses.length === 1 && issue.keys.length === 1 ? `"${guesses[0]![1]}"` : guesses.map(([key, guess]) => `"${guess}" for "${key}"`).join(', ');
      if (guesses.length) return { path, message: `${issue.message} (did you mean ${said}?)` };
    }
    return { path, message: issue.message };
  });
}

interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
  out?: z.ZodType;
  getter?: () => z.ZodType;
  element?: z.ZodType;
}

/** The keys an object schema at `path` knows, through records, optionals, defaults, unions and pipes. Pure. */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const def = (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
  const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined) ?? (def.type === 'lazy' ? def.getter?.() : undefined);
  if (inner) return keysAt(inner, path);
  if (def.type === 'union') return [...new Set((def.options ?? []).flatMap((option) => keysAt(option, path)))];
  if (path.length === 0) return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
  const [head, ...rest] = path;
  if (def.type === 'object') {
    const field = def.shape?.[String(head)];
    return field ? keysAt(field, rest) : [];
  }
  if (def.type === 'record' && def.valueType) return keysAt(def.valueType, rest);
  if (def.type === 'array' && def.element) return keysAt(def.element, rest);
  return [];
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
  if (unit === 'serve.http') return 'The HTTP settings of the serve section';
  const [top, name, entry] = unit.split('.');
  if (top === 'registry' && name === 'sources' && entry !== undefined) return `Registry source "${entry}"`;
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
