import { isAbsolute, resolve } from 'node:path';

/**
 * `${file:PATH}` and `${keyring:NAME}`: the secrets a config names, as the loader must read them
 * before it expands the config (config/secrets/interpolate.ts). Pure: config/secrets/secret-sources.ts reads them.
 */

/** What each secret named was found to be, by `file:PATH` (as written) or `keyring:NAME`. */
export type SecretValues = ReadonlyMap<string, { value: string } | { problem: string }>;

/** The service every mcpkit secret is kept under in the system keyring (its account is NAME). */
export const KEYRING_SERVICE = 'mcpkit';

// The same forms as interpolate.ts's placeholder; `$${` is text, so what it starts is never read.
const SECRET_PLACEHOLDER = /\$\$\{|\$\{(file|keyring):(?!-)([^}]+)\}/g;

/** The files (as written) and keyring names a config's strings name, each once, in order. Pure. */
export function secretSourcesIn(data: unknown): { files: string[]; keyring: string[] } {
  const files = new Set<string>();
  const keyring = new Set<string>();
  const walk = (node: unknown): void => {
    if (typeof node === 'string') {
      for (const m of node.matchAll(SECRET_PLACEHOLDER)) if (m[1]) (m[1] === 'file' ? files : keyring).add(m[2]!);
    } else if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') Object.values(node).forEach(walk);
  };
  walk(data);
  return { files: [...files], keyring: [...keyring] };
}

/** Where `${file:PATH}` reads: PATH as it is when absolute, else from the config's folder. Pure. */
export function secretFilePath(written: string, configFolder: string): string {
  return isAbsolute(written) ? written : resolve(configFolder, written);
}

/** A secret file's value: its text with one trailing newline dropped (what `echo x > file` adds). Pure. */
export function secretFileValue(text: string): string {
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** A keyring secret's name: what a shell, a YAML value and every platform's keyring take as they are. */
export const KEYRING_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$/;

/** Why a name cannot be a keyring secret's, or undefined when it can. Pure. */
export function keyringNameProblem(name: string): string | undefined {
  return KEYRING_NAME.test(name)
    ? undefined
    : `"${name}" is not a secret name: use 1-128 letters, digits, "_", ".", "@" and "-", starting with a letter or digit`;
}
