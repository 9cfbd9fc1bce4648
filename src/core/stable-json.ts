/**
 * JSON with object keys sorted, so that two values written in another key order compare (and
 * hash) equal: config entries across a reload, tool definitions for their pins. `indent` as in
 * JSON.stringify, for text a person reads.
 */
export function stableJson(value: unknown, indent?: number): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
    indent,
  );
}
