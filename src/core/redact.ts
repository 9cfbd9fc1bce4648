import { processShared } from './process-shared.js';

/**
 * Secrets that must never be shown: values that came from `${VAR}` in the config, values under
 * secret-looking keys, passwords in URLs. The config loader registers them; every path that
 * publishes text (errors in both front ends, logs) runs it through `redact`. Kept for the process
 * rather than passed along: a registry URL with ?key=${KEY} reaches error messages through many
 * layers, and a redactor that has to be threaded through each of them is one that gets forgotten.
 */
/**
 * A secret this long is masked wherever it occurs. A shorter one is masked only where it stands
 * as a secret (SECRET_PLACES): a short value is too likely to be one of mcpkit's own words (the
 * example password of docs/guide/arango.md is "mcpkit"), and masking it everywhere turned every hint into "****".
 */
const ANYWHERE_LENGTH = 8;

/**
 * One for the process, whichever copy of this module asks (./process-shared.ts): a copy that
 * prints what another's config registered would otherwise mask nothing. `ordered` is `known`, longest first.
 */
const secrets = processShared('secrets', () => ({ known: new Set<string>(), short: new Set<string>(), ordered: [] as string[] }));

/**
 * Where a value is a secret whatever its length: a URL's password (//user:PASS@), an HTTP
 * credential (Bearer PASS, Basic PASS), and the value of a secret-looking key, as a query
 * parameter, an environment assignment, a YAML or a JSON field (password=PASS, "token": "PASS").
 * Group 1 is what stays, group 2 the value.
 */
const SECRET_PLACES =
  /(\/\/[^\s/@:]*:)([^\s/@]+)(?=@)|(\b(?:Bearer|Basic)\s+)([^\s"',;]+)|(\b[\w-]*(?:pass(?:word)?|passwd|pwd|token|secret|key|auth|credential)s?[\w-]*["']?\s*[=:]\s*["']?(?:(?:Bearer|Basic)\s+)?)([^\s"'&,;}\]]+)/gi;

export const REDACTED = '****';

export function addSecrets(values: Iterable<string>): void {
  let added = false;
  for (const value of values) {
    // A value of several lines (a PEM key) is printed a line at a time too (a server's stderr,
    // a log), so each of its lines is a secret of its own.
    const lines = value.includes('\n')
      ? value
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter((l) => l.length >= ANYWHERE_LENGTH)
      : [];
    for (const form of [value, ...encodedForms(value), ...lines]) {
      if (form.length >= ANYWHERE_LENGTH && !secrets.known.has(form)) {
        secrets.known.add(form);
        added = true;
      } else if (form.length > 0 && form.length < ANYWHERE_LENGTH) secrets.short.add(form);
    }
  }
  // Longest first, so a secret that contains another is hidden whole.
  if (added) secrets.ordered = [...secrets.known].sort((a, b) => b.length - a.length);
}

/**
 * The spellings a secret takes on its way out: URL-encoded (as a path or query part, as a form
 * field with "+" for spaces, in lower-case hex), and Base64 (standard and URL-safe), alone or
 * inside a longer encoded value such as HTTP Basic's base64("user:secret"). Inside a longer
 * value its Base64 depends on where it starts modulo 3 bytes, so the characters fixed by the
 * secret's bytes alone are taken for each of the three alignments (as secret scanners do).
 */
function encodedForms(value: string): string[] {
  const url = encodeURIComponent(value);
  const forms = [url, url.replace(/%20/g, '+'), url.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())];
  const bytes = Buffer.from(value, 'utf8');
  for (const encoding of ['base64', 'base64url'] as const) {
    forms.push(bytes.toString(encoding));
    for (let k = 0; k < 3; k++) {
      const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString(encoding);
      forms.push(encoded.slice(Math.ceil((4 * k) / 3), Math.floor((4 * (k + bytes.length)) / 3)));
    }
  }
  return forms.filter((form) => form !== value);
}

export function redact(text: string): string {
  const { ordered, short } = secrets;
  let out = text;
  for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  if (short.size > 0) {
    out = out.replace(SECRET_PLACES, (match: string, ...groups: (string | undefined)[]) => {
      for (let i = 0; i < 6; i += 2) {
        const value = groups[i + 1];
        if (value !== undefined) return short.has(value) ? `${groups[i]}${REDACTED}` : match;
      }
      return match;
    });
  }
  return out;
}

/** `redact` over every string in a JSON-like value. */
export function redactDeep<T>(value: T): T {
  if (secrets.ordered.length === 0 && secrets.short.size === 0) return value;
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map(redactDeep) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v)])) as T;
  return value;
}
