/**
 * Secrets that must never be shown: values that came from `${VAR}` in the config, values under
 * secret-looking keys, passwords in URLs. The config loader registers them; every path that
 * publishes text (errors in both front ends, logs) runs it through `redact`. Kept for the process
 * rather than passed along: a registry URL with ?key=${KEY} reaches error messages through many
 * layers, and a redactor that has to be threaded through each of them is one that gets forgotten.
 */
const MIN_LENGTH = 6;
const known = new Set<string>();
let ordered: string[] = [];

export const REDACTED = '****';

export function addSecrets(values: Iterable<string>): void {
  let added = false;
  for (const value of values) {
    for (const form of [value, encodeURIComponent(value)]) {
      if (form.length >= MIN_LENGTH && !known.has(form)) {
        known.add(form);
        added = true;
      }
    }
  }
  // Longest first, so a secret that contains another is hidden whole.
  if (added) ordered = [...known].sort((a, b) => b.length - a.length);
}

export function redact(text: string): string {
  if (ordered.length === 0) return text;
  let out = text;
  for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/** `redact` over every string in a JSON-like value. */
export function redactDeep<T>(value: T): T {
  if (ordered.length === 0) return value;
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map(redactDeep) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v)])) as T;
  return value;
}
