import type { SecretValues } from './secret-refs.js';

/**
 * `${VAR}` and `${VAR:-default}` in string values, expanded on load and never written back; so
 * are `${file:PATH}` and `${keyring:NAME}`, whose values are read beforehand (config/secrets/secret-sources.ts).
 * `$${` is a literal `${`. Pure: the environment and the secrets read are passed in.
 */
export interface MissingVariable {
  path: string;
  variable: string;
  /** Why a secret (`file:PATH`, `keyring:NAME`) has no value, naming the file or the entry. */
  message?: string;
}

export interface Interpolated<T> {
  value: T;
  missing: MissingVariable[];
  /** Paths whose value took text from an environment variable or a secret (masked by `config show`). */
  fromEnv: Set<string>;
  /** The values taken from the environment and from secrets: never to be shown (core/redact). */
  envValues: Set<string>;
  /** Every variable a placeholder names, with where (set or not, with a default or not). */
  references: { path: string; variable: string }[];
  /** Values refused where they were to go: a server URL's host, which a value may not change. */
  refused: { path: string; variable: string; why: string }[];
}

/** Where in a URL template a placeholder is: at its start (it gives the scheme and host), in the host, or after it. */
export function urlPart(before: string): 'start' | 'host' | 'rest' {
  if (before === '') return 'start';
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(before);
  if (!scheme) return /[/?#]/.test(before) ? 'rest' : 'start';
  return /[/?#]/.test(before.slice(scheme[0].length)) ? 'rest' : 'host';
}

/**
 * A value as it may stand in a URL (mcp_servers.NAME.url): at the start as it is (the schema then
 * checks the whole is an http(s) URL); in the host only letters, digits, ".", "-" and a ":port"
 * (anything else would change which host or scheme it names: refused); after the host,
 * percent-encoded, so that it stays inside its path segment or query value. Pure.
 */
export function valueInUrl(value: string, part: 'start' | 'host' | 'rest'): { text: string } | { why: string } {
  if (part === 'start') return { text: value };
  if (part === 'host') {
    return /^[A-Za-z0-9.-]*(:\d{1,5})?$/.test(value)
      ? { text: value }
      : { why: 'a value in the host of a URL may hold only letters, digits, "." and "-" (it would change which host the URL names)' };
  }
  return { text: encodeURIComponent(value) };
}

// `${file:-x}` stays the variable `file` with a default, as before secrets had a syntax.
const PLACEHOLDER = /\$\$\{|\$\{(?:(file|keyring):(?!-)([^}]+)|([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?)\}/g;

const NO_SECRETS: SecretValues = new Map();

/**
 * A text as data: every `${` written `$${`, so that loading the config gives back exactly this
 * text and expands nothing from mcpkit's environment (what an agent or a registry entry supplies).
 * `$${` itself stays what it was (`$$${` reads back as `$${`). Pure.
 */
export function literalText(text: string): string {
  // A function, since "$$" in a replacement string is one "$".
  return text.replaceAll('${', () => '$${');
}

/** Every string value of a plain value (objects and arrays walked; keys, which are not expanded, kept) as literalText. Pure. */
export function literalValues<T>(value: T): T {
  if (typeof value === 'string') return literalText(value) as T;
  if (Array.isArray(value)) return value.map((item) => literalValues(item)) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literalValues(v)])) as T;
  return value;
}

/**
 * A text as it will be sent, for a person to approve: `$${` as the `${` it stands for, and each
 * variable that loading fills in named for what it is, never its value. Pure.
 */
export function textAsSent(text: string): string {
  return text.replace(PLACEHOLDER, (match, kind: string | undefined, ref: string | undefined, name: string | undefined, fallback: string | undefined) => {
    if (match === '$${') return '${';
    if (kind === 'file') return `<the contents of the file ${ref}>`;
    if (kind === 'keyring') return `<the secret ${ref} of the system keyring>`;
    return `<the value of ${name} in mcpkit's environment${fallback !== undefined ? `, else "${fallback}"` : ''}>`;
  });
}

/** The variables a text takes from the environment when the config loads (escaped `$${` are not). Pure. */
export function variablesIn(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) if (m[3]) names.push(m[3]);
  return names;
}

export function interpolateString(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  /** The text is a URL: each value is placed as valueInUrl says. */
  url = false,
  secrets: SecretValues = NO_SECRETS,
): {
  text: string;
  missing: string[];
  /** Secrets without a value (`file:PATH`, `keyring:NAME`), each with why. */
  unread: { source: string; why: string }[];
  usedEnv: boolean;
  values: string[];
  names: string[];
  refused: { variable: string; why: string }[];
} {
  const missing: string[] = [];
  const unread: { source: string; why: string }[] = [];
  const values: string[] = [];
  const names: string[] = [];
  const refused: { variable: string; why: string }[] = [];
  let usedEnv = false;
  const place = (chosen: string, variable: string, match: string, offset: number): string => {
    if (!url) return chosen;
    const placed = valueInUrl(chosen, urlPart(text.slice(0, offset)));
    if ('why' in placed) {
      refused.push({ variable, why: placed.why });
      return match;
    }
    return placed.text;
  };
  const out = text.replace(
    PLACEHOLDER,
    (match, kind: string | undefined, ref: string | undefined, name: string | undefined, fallback: string | undefined, offset: number) => {
      if (match === '$${') return '${';
      if (kind !== undefined) {
        const source = `${kind}:${ref!}`;
        const read = secrets.get(source);
        if (read === undefined || 'problem' in read) {
          unread.push({ source, why: read?.problem ?? `${source} was not read` });
          return match;
        }
        // A secret is masked even when empty: whether it is set is not for `config show` to say.
        usedEnv = true;
        if (read.value !== '') values.push(read.value);
        return place(read.value, source, match, offset);
      }
      names.push(name!);
      const value = env[name!];
      // Like the shell's ${VAR:-default}: an empty variable also takes the default.
      const chosen = value !== undefined && value !== '' ? value : fallback !== undefined ? fallback : value === '' ? '' : undefined;
      if (chosen === undefined) {
        missing.push(name!);
        return match;
      }
      if (value !== undefined && value !== '') {
        usedEnv = true;
        values.push(value);
      }
      return place(chosen, name!, match, offset);
    },
  );
  return { text: out, missing, unread, usedEnv, values, names, refused };
}

export function joinPath(path: readonly (string | number)[]): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.');
}

export function interpolate<T>(value: T, env: Readonly<Record<string, string | undefined>>, secrets: SecretValues = NO_SECRETS): Interpolated<T> {
  const missing: MissingVariable[] = [];
  const fromEnv = new Set<string>();
  const envValues = new Set<string>();
  const references: { path: string; variable: string }[] = [];
  const refused: { path: string; variable: string; why: string }[] = [];
  const walk = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') {
      const isServerUrl = path.length === 3 && path[0] === 'mcp_servers' && path[2] === 'url';
      const result = interpolateString(node, env, isServerUrl, secrets);
      for (const r of result.refused) refused.push({ path: joinPath(path), ...r });
      for (const variable of result.names) references.push({ path: joinPath(path), variable });
      for (const variable of result.missing) missing.push({ path: joinPath(path), variable });
      for (const { source, why } of result.unread) missing.push({ path: joinPath(path), variable: source, message: why });
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
  return { value: walk(value, []) as T, missing, fromEnv, envValues, references, refused };
}
