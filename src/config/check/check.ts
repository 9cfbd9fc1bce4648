import { secretValues } from '../secrets/mask.js';
import type { ConfigProblem } from './problems.js';
import { configSchema, ONCE, type McpkitConfig } from '../schema/schema.js';
import type { SecretValues } from '../secrets/secret-refs.js';
import { checkValues, problemsOnLoad, unsetVariableIn } from './value-check.js';
import { configData } from './yaml-data.js';

// The YAML alone, apart: what reads a config's names only (tab completion) loads no schema.

export interface CheckedConfig {
  problems: ConfigProblem[];
  /** The file as written (placeholders intact), or undefined when it could not be parsed. */
  raw?: Record<string, unknown>;
  /** Interpolated, validated, with defaults; only when there are no problems. */
  config?: McpkitConfig;
  /** Paths whose values came from environment variables. */
  fromEnv: Set<string>;
  /** Values never to be shown (core/redact): from the environment, under secret keys, URL passwords. */
  secrets?: string[];
}

/** Everything a load checks, collected rather than stopping at the first: YAML, variables, schema. */
export function checkConfigText(text: string, env: Readonly<Record<string, string | undefined>>, secrets?: SecretValues): CheckedConfig {
  const parsed = configData(text);
  return 'raw' in parsed ? checkConfigData(parsed.raw, env, secrets) : { problems: parsed.problems, fromEnv: new Set() };
}

/** checkConfigText's checks after the YAML: variables and secrets (`secretsRead`: those read for it, config/secrets/secret-sources.ts), schema. */
export function checkConfigData(raw: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>, secretsRead?: SecretValues): CheckedConfig {
  const check = checkValues(raw, env, secretsRead);
  const { expanded, parsed } = check;
  const secrets = secretValues(expanded.value, expanded.envValues);
  const problems = problemsOnLoad(check);
  const references = referencesOf(expanded.references);
  if (problems.length === 0 && parsed.success) return { problems, raw, config: { ...parsed.data, references }, fromEnv: expanded.fromEnv, secrets };
  const contained = containProblems(check.value, problems);
  return { problems, raw, fromEnv: expanded.fromEnv, secrets, ...(contained ? { config: { ...contained, references } } : {}) };
}

/** The variables the config's placeholders name: all of them, those of each server's entry, and those of each unit (problemUnit). Pure. */
export function referencesOf(found: readonly { path: string; variable: string }[]): NonNullable<McpkitConfig['references']> {
  const all = new Set<string>();
  const servers: Record<string, string[]> = {};
  const units: Record<string, string[]> = {};
  for (const { path, variable } of found) {
    all.add(variable);
    const [top, name] = path.split('.');
    if (top === 'mcp_servers' && name !== undefined && !(servers[name] ??= []).includes(variable)) servers[name]!.push(variable);
    const unit = problemUnit(path) ?? top ?? path;
    if (!(units[unit] ??= []).includes(variable)) units[unit]!.push(variable);
  }
  return { all: [...all].sort(), servers, units };
}

/**
 * The part of the config a problem belongs to: one server, view or composite tool, or one of the
 * sections of a group (registry, arango, retrieve, serve). Undefined for problems that concern
 * the whole file (YAML, an unknown top-level key, hooks). Pure.
 */
export function problemUnit(path: string): string | undefined {
  const [top, name, third] = path.split('.');
  if ((top === 'mcp_servers' || top === 'tool_views' || top === 'composite_tools') && name) return `${top}.${name}`;
  // One registry source's unset key harms that source only.
  if (top === 'registry' && name === 'sources' && third) return `registry.sources.${third}`;
  // What only serve --http reads: over stdio, an unset variable there (an agent's token, the
  // admin's) must not take away the settings stdio serve does use (groups, exposure, the audit log).
  if (top === 'serve' && name !== undefined && SERVE_HTTP_KEYS.has(name)) return 'serve.http';
  if (top === 'registry' || top === 'arango' || top === 'retrieve' || top === 'serve') return top;
  return undefined;
}

/**
 * A problem `config validate` reports as a warning: a registry source's unset variable. A shell
 * without one registry's key loses that registry alone (its commands say why); the rest of the
 * config is whole. Pure.
 */
export function isWarning(problem: ConfigProblem): boolean {
  return problemUnit(problem.path)?.startsWith('registry.sources.') === true && unsetVariableIn(problem.message) !== undefined;
}

/** The keys of the serve section that only serve --http reads (unit `serve.http` of problemUnit). */
export const SERVE_HTTP_KEYS: ReadonlySet<string> = new Set([
  'host',
  'port',
  'token',
  'allowed_origins',
  'max_body_bytes',
  'session_idle_ms',
  'replica_id',
  'max_sessions',
  'send_timeout_ms',
  'max_send_buffer_bytes',
  'max_client_hubs',
  'metrics',
  'open_routes',
  'metrics_public',
  'auth',
  'clients',
  'tasks',
  'host_tools_without_auth',
  'store',
]);

/** The URL of a registry source set aside for its problems. */
export const SET_ASIDE_REGISTRY_URL = 'https://set-aside.invalid';

/** What stands in for a unit that has problems, so the rest of the file still validates. */
function standIn(unit: string): unknown {
  // A server keeps its place (views name it; names in a view of several servers keep their
  // prefix) but is never started: whoever uses it checks `unusable` first. A view or a section
  // falls back to its empty defaults.
  if (unit.startsWith('mcp_servers.')) return { command: 'false' };
  // A registry source's stand-in reaches nothing: `.invalid` never resolves (RFC 6761).
  if (unit.startsWith('registry.sources.')) return { url: SET_ASIDE_REGISTRY_URL };
  return {};
}

/**
 * A config whose problems all belong to units (see problemUnit) is still usable: each such unit
 * is replaced by a stand-in and listed in `unusable`, so one unset variable in one server's
 * entry harms that server only. Undefined when the file as a whole is not usable. Pure.
 */
export function containProblems(expanded: Record<string, unknown>, problems: readonly ConfigProblem[]): McpkitConfig | undefined {
  const unusable: Record<string, string[]> = {};
  for (const problem of problems) {
    const unit = problemUnit(problem.path);
    if (!unit) return undefined;
    (unusable[unit] ??= []).push(`${problem.path}: ${problem.message}`);
  }
  const patched: Record<string, unknown> = { ...expanded };
  for (const unit of Object.keys(unusable)) {
    const [top, name, entry] = unit.split('.') as [string, string | undefined, string | undefined];
    if (unit === 'serve.http') {
      // Its keys with problems are left out: serve --http refuses to start while they are (run-serve.ts).
      const keys = new Set(problems.filter((p) => problemUnit(p.path) === unit).map((p) => p.path.split('.')[1]!));
      patched.serve = Object.fromEntries(Object.entries((patched.serve ?? {}) as object).filter(([key]) => !keys.has(key)));
    } else if (entry !== undefined) {
      // A registry source keeps its name, so that registry.default may still name it (the default
      // stays that source, never silently another registry), but nothing of it is kept: whoever
      // names it checks `unusable` first (tools/registry/shared.ts registryFor).
      const section = (patched[top] ?? {}) as Record<string, Record<string, unknown> | undefined>;
      patched[top] = { ...section, [name!]: { ...section[name!], [entry]: standIn(unit) } };
    } else if (name === undefined) patched[top] = standIn(unit);
    else if (top === 'composite_tools') patched[top] = Object.fromEntries(Object.entries(patched[top] as object).filter(([key]) => key !== name));
    else patched[top] = { ...(patched[top] as object), [name]: standIn(unit) };
  }
  const parsed = configSchema.safeParse(patched, ONCE);
  return parsed.success ? { ...parsed.data, unusable } : undefined;
}
