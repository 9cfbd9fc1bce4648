/**
 * Names a client sees for proxied tools. Many clients accept only `^[A-Za-z0-9_-]{1,64}$`
 * (stricter than MCP itself), so exposed names are kept to that:
 * - a view of several servers prefixes `{server}{separator}{tool}` (separator `__` by default);
 * - other characters become `_`;
 * - a name over 64 characters keeps its first 55 and appends `_` plus 8 hex digits of a hash of
 *   the full name, so the same input always gives the same name;
 * - should two names still collide, later ones get `_2`, `_3`, ... in input order; a name that
 *   is valid as it is keeps it before any changed name is placed, so a sanitised name never
 *   takes a real one (`weird name` never shadows `weird_name`).
 * Pure.
 */
export const MAX_TOOL_NAME = 64;
export const DEFAULT_SEPARATOR = '__';

/** FNV-1a, 32 bits: tiny, stable across runs and platforms. */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

export function sanitizeName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return clean === '' ? '_' : clean;
}

export function fitName(name: string, max = MAX_TOOL_NAME): string {
  const clean = sanitizeName(name);
  if (clean.length <= max) return clean;
  return `${clean.slice(0, max - 9)}_${fnv1a(name)}`;
}

export function prefixedName(server: string, tool: string, separator: string | null): string {
  return separator === null ? tool : `${server}${separator}${tool}`;
}

/** Fits every name and makes them unique: names valid as they are first, then the changed ones. */
export function uniqueNames(names: readonly string[], max = MAX_TOOL_NAME): string[] {
  const taken = new Set<string>();
  const out: string[] = new Array<string>(names.length);
  const place = (raw: string): string => {
    let name = fitName(raw, max);
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = `${fitName(raw, max - suffix.length)}${suffix}`;
    }
    taken.add(name);
    return name;
  };
  const valid = names.map((raw) => fitName(raw, max) === raw);
  names.forEach((raw, i) => {
    if (valid[i]) out[i] = place(raw);
  });
  names.forEach((raw, i) => {
    if (!valid[i]) out[i] = place(raw);
  });
  return out;
}
