import { parseDocument, type Document } from 'yaml';
import { interpolate } from './interpolate.js';
import type { ConfigProblem } from './problems.js';
import { problemsFromZod } from './problems.js';
import { configSchema, type McpkitConfig } from './schema.js';

export interface CheckedConfig {
  problems: ConfigProblem[];
  /** The file as written (placeholders intact), or undefined when it could not be parsed. */
  raw?: Record<string, unknown>;
  /** Interpolated, validated, with defaults; only when there are no problems. */
  config?: McpkitConfig;
  /** Paths whose values came from environment variables. */
  fromEnv: Set<string>;
}

export function parseYaml(text: string): { doc: Document; problems: ConfigProblem[] } {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const problems = doc.errors.map((e) => ({
    path: e.linePos ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '(yaml)',
    message: e.message.split('\n', 1)[0]!,
  }));
  return { doc, problems };
}

/** The document's content as plain data; an empty file is an empty config. */
export function documentData(doc: Document): { data: Record<string, unknown>; problems: ConfigProblem[] } {
  const data = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (data === null || data === undefined) return { data: {}, problems: [] };
  if (typeof data !== 'object' || Array.isArray(data)) {
    return { data: {}, problems: [{ path: '(root)', message: 'the config must be a YAML mapping (key: value), not a list or a scalar' }] };
  }
  return { data: data as Record<string, unknown>, problems: [] };
}

/** Structure only, placeholders allowed: what an edit must keep valid. */
export function structuralProblems(data: Record<string, unknown>): ConfigProblem[] {
  const parsed = configSchema.safeParse(data);
  return parsed.success ? [] : problemsFromZod(parsed.error);
}

/** Everything a load checks, collected rather than stopping at the first: YAML, variables, schema. */
export function checkConfigText(text: string, env: Readonly<Record<string, string | undefined>>): CheckedConfig {
  const { doc, problems: yamlProblems } = parseYaml(text);
  if (yamlProblems.length) return { problems: yamlProblems, fromEnv: new Set() };
  const { data: raw, problems: shapeProblems } = documentData(doc);
  if (shapeProblems.length) return { problems: shapeProblems, fromEnv: new Set() };
  const expanded = interpolate(raw, env);
  const problems: ConfigProblem[] = expanded.missing.map(({ path, variable }) => ({
    path,
    message: `environment variable ${variable} is not set (set it, or write \${${variable}:-default})`,
  }));
  const parsed = configSchema.safeParse(expanded.value);
  if (!parsed.success) problems.push(...problemsFromZod(parsed.error));
  if (problems.length || !parsed.success) return { problems, raw, fromEnv: expanded.fromEnv };
  return { problems, raw, config: parsed.data, fromEnv: expanded.fromEnv };
}
