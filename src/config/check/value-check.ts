import type { z } from 'zod';
import { interpolate, type Interpolated } from '../secrets/interpolate.js';
import { problemsFromZod, type ConfigProblem } from './problems.js';
import type { SecretValues } from '../secrets/secret-refs.js';
import { configSchema, ONCE } from '../schema/schema.js';

/**
 * The one check of a config's values, for `config validate`, every load, and every edit: each
 * `${VAR}` expanded with the environment given, then the schema on the values the variables give.
 * What each of them reports from it is chosen below (problemsOnLoad, problemsOfEdit).
 */
export interface ValueCheck {
  expanded: Interpolated<Record<string, unknown>>;
  /** The expanded config, with a number or true/false that a variable gave as text read as one. */
  value: Record<string, unknown>;
  parsed: ReturnType<typeof configSchema.safeParse>;
  /** Each variable not set, as `config validate` says it. */
  unset: ConfigProblem[];
  /** Values a variable gave that cannot go where they stand (the host of a URL). */
  refused: ConfigProblem[];
  /** The schema's problems; `needsValue`: no text can stand there (a number, a list): the field needs the variable's value. */
  schema: (ConfigProblem & { needsValue: boolean })[];
}

export function unsetVariableMessage(variable: string): string {
  return `environment variable ${variable} is not set (set it, or write \${${variable}:-default})`;
}

/** The variable an unset-variable message (unsetVariableMessage) names; undefined for any other message. Pure. */
export function unsetVariableIn(message: string): string | undefined {
  return /^environment variable ([A-Za-z_][A-Za-z0-9_]*) is not set \(/.exec(message)?.[1];
}

/** Expands `raw` with `env` (and the `${file:}` / `${keyring:}` secrets read for it) and checks the result against the schema. Pure. */
export function checkValues(raw: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>, secrets?: SecretValues): ValueCheck {
  const expanded = interpolate(raw, env, secrets);
  // A secret that could not be read says why in its own words (the file, the keyring entry).
  const unset = expanded.missing.map(({ path, variable, message }) => ({ path, message: message ?? unsetVariableMessage(variable) }));
  const refused = expanded.refused.map(({ path, variable, why }) => ({
    path,
    message: `${variable.includes(':') ? 'the secret' : 'environment variable'} ${variable} cannot go where it stands: ${why}`,
  }));
  const unsetPaths = new Set(expanded.missing.map((m) => m.path));
  const placeholderPaths = new Set(expanded.references.map((r) => r.path).filter((path) => !unsetPaths.has(path)));
  let value = expanded.value;
  let parsed = configSchema.safeParse(value, ONCE);
  if (!parsed.success) {
    const read = readScalars(value, parsed.error.issues, placeholderPaths);
    if (read !== value) {
      value = read;
      parsed = configSchema.safeParse(value, ONCE);
    }
  }
  const issues = parsed.success ? [] : parsed.error.issues;
  const schema = (parsed.success ? [] : problemsFromZod(parsed.error, configSchema)).map((problem, i) => ({
    path: problem.path,
    message: placeholderPaths.has(problem.path) ? `${problem.message} (the value of ${givers(expanded, problem.path)})` : problem.message,
    needsValue: issues[i]?.code === 'invalid_type',
  }));
  return { expanded, value, parsed, unset, refused, schema };
}

/**
 * What a load (and `config validate`) reports: every unset variable, every refused value, and the
 * schema's problems, except where a variable is unset: the placeholder's text is not what the
 * schema would check, and "REPLICA_ID is not set" says all there is to say there. Pure.
 */
export function problemsOnLoad(check: ValueCheck): ConfigProblem[] {
  const unsetPaths = new Set(check.unset.map((p) => p.path));
  return [...check.unset, ...check.refused, ...check.schema.filter((p) => !unsetPaths.has(p.path)).map(plain)];
}

/**
 * What refuses an edit: the same problems, but an unset variable only where the field needs its
 * value (a number, a list): elsewhere its text is checked where it is set (each replica's own
 * `${REPLICA_ID}`), so a variable that only serve's environment holds does not block an edit made
 * in a shell without it. Pure.
 */
export function problemsOfEdit(check: ValueCheck): ConfigProblem[] {
  const unsetPaths = new Set(check.unset.map((p) => p.path));
  const needing = new Set(check.schema.filter((p) => p.needsValue && unsetPaths.has(p.path)).map((p) => p.path));
  return [...check.unset.filter((p) => needing.has(p.path)), ...check.refused, ...check.schema.filter((p) => !unsetPaths.has(p.path)).map(plain)];
}

/** The placeholders that gave a path its value, as written: `${REPLICA_ID}`, so a person knows the file is not what is wrong. */
function givers(expanded: Interpolated<unknown>, path: string): string {
  return [...new Set(expanded.references.filter((r) => r.path === path).map((r) => `\${${r.variable}}`))].join(', ');
}

function plain(problem: ConfigProblem & { needsValue: boolean }): ConfigProblem {
  return { path: problem.path, message: problem.message };
}

const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

/**
 * `port: ${PORT}` is the text "8000" once expanded: where the schema wants a number (or
 * true/false) and a variable gave the text, the text is read as one. Only there: a number
 * written in quotes stays the mistake it is. A copy; `value` itself when nothing is read. Pure.
 */
export function readScalars(value: Record<string, unknown>, issues: readonly z.core.$ZodIssue[], fromVariables: ReadonlySet<string>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || (issue.expected !== 'number' && issue.expected !== 'boolean')) continue;
    if (!fromVariables.has(issue.path.map(String).join('.'))) continue;
    const text = valueAt(value, issue.path);
    if (typeof text !== 'string') continue;
    const read =
      issue.expected === 'number' ? (NUMBER_TEXT.test(text) ? Number(text) : undefined) : text === 'true' ? true : text === 'false' ? false : undefined;
    if (read === undefined) continue;
    copy ??= structuredClone(value);
    setAt(copy, issue.path, read);
  }
  return copy ?? value;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined), value);
}

function setAt(value: Record<string, unknown>, path: readonly PropertyKey[], read: unknown): void {
  const parent = valueAt(value, path.slice(0, -1)) as Record<PropertyKey, unknown>;
  parent[path[path.length - 1]!] = read;
}
