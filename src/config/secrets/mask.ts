import { joinPath } from './interpolate.js';

export const MASK = '********';

export const SECRET_KEY = /token|secret|passw(or)?d|api[_-]?key|authorization|credential|private[_-]?key|cookie|^key$/i;
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^/?#@]*:)([^/?#@]+)@/i;
const PLACEHOLDER = /\$\{(?:[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?|(?:file|keyring):[^}]+)\}/;

/**
 * Hides values that came from the environment or a secret (`${file:}`, `${keyring:}`), values
 * under secret-looking keys, and URLs' passwords, so that `config show` can be pasted into an
 * issue. Unexpanded text with a placeholder ("Bearer ${TOKEN}", "${file:/run/secrets/gh}") keeps
 * its secret elsewhere, so it is shown as written.
 */
export function maskSecrets(value: unknown, fromEnv: ReadonlySet<string>): unknown {
  const walk = (node: unknown, path: (string | number)[], secretKey: boolean): unknown => {
    if (typeof node === 'string') {
      if (fromEnv.has(joinPath(path))) return MASK;
      if (secretKey && node !== '' && !PLACEHOLDER.test(node)) return MASK;
      // A URL's password (http://root:pass@host), unless it is a ${VAR}.
      return node.replace(URL_PASSWORD, (whole, head: string, password: string) => (PLACEHOLDER.test(password) ? whole : `${head}${MASK}@`));
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i], secretKey));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, [...path, k], secretKey || SECRET_KEY.test(k))]));
    }
    return node;
  };
  return walk(value, [], false);
}

/**
 * Every value of a config that must never be shown: taken from the environment, under a
 * secret-looking key, or the password of a URL (`http://root:pass@host`). Pure.
 */
export function secretValues(value: unknown, envValues: Iterable<string>): string[] {
  const found = new Set<string>(envValues);
  const walk = (node: unknown, secretKey: boolean): void => {
    if (typeof node === 'string') {
      if (secretKey && node !== '' && !PLACEHOLDER.test(node)) found.add(node);
      const userinfo = URL_PASSWORD.exec(node);
      if (userinfo) found.add(decodeURIComponent(userinfo[2]!));
      return;
    }
    if (Array.isArray(node)) node.forEach((item) => walk(item, secretKey));
    else if (node !== null && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, secretKey || SECRET_KEY.test(k));
  };
  walk(value, false);
  return [...found];
}
