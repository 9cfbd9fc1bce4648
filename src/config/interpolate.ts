/**
 * `${VAR}` and `${VAR:-default}` in string values, expanded on load and never written back.
 * `$${` is a literal `${`. Pure: the environment is passed in.
 */
export interface MissingVariable {
  path: string;
  variable: string;
}

export interface Interpolated<T> {
  value: T;
  missing: MissingVariable[];
  /** Paths whose value took text from an environment variable (masked by `config show`). */
  fromEnv: Set<string>;
  /** The values taken from the environment: never to be shown (core/redact). */
  envValues: Set<string>;
  /** Every variable a placeholder names, with where (set or not, with a default or not). */
  references: { path: string; variable: string }[];
}

const PLACEHOLDER = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function interpolateString(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): { text: string; missing: string[]; usedEnv: boolean; values: string[]; names: string[] } {
  const missing: string[] = [];
  const values: string[] = [];
  const names: string[] = [];
  let usedEnv = false;
  const out = text.replace(PLACEHOLDER, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$${') return '${';
    names.push(name!);
    const value = env[name!];
    // Like the shell's ${VAR:-default}: an empty variable also takes the default.
    if (value !== undefined && value !== '') {
      usedEnv = true;
      values.push(value);
      return value;
    }
    if (fallback !== undefined) return fallback;
    if (value === '') return '';
    missing.push(name!);
    return match;
  });
  return { text: out, missing, usedEnv, values, names };
}

export function joinPath(path: readonly (string | number)[]): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.');
}

export function interpolate<T>(value: T, env: Readonly<Record<string, string | undefined>>): Interpolated<T> {
  const missing: MissingVariable[] = [];
  const fromEnv = new Set<string>();
  const envValues = new Set<string>();
  const references: { path: string; variable: string }[] = [];
  const walk = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') {
      const result = interpolateString(node, env);
      for (const variable of result.names) references.push({ path: joinPath(path), variable });
      for (const variable of result.missing) missing.push({ path: joinPath(path), variable });
      if (result.usedEnv) fromEnv.add(joinPath(path));
      for (const v of result.values) envValues.add(v);
      return result.text;
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, [...path, k])]));
    }
    return node;
  };
  return { value: walk(value, []) as T, missing, fromEnv, envValues, references };
}
