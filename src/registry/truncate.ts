/**
 * Auto-truncation of registry responses for a model's context. Pure; the input is
 * never mutated.
 *
 * - A string longer than 200 characters keeps its first 200, followed by
 *   `... [TRUNCATED - use expand_fields: ["<path>"] to see full content]`.
 * - An object or array at depth >= 5 whose JSON is longer than 500 characters becomes
 *   `[DEEP OBJECT TRUNCATED - use expand_fields: ["<path>"] to see full content]`.
 * - Depth counts each key and each array index: `servers` 1, `servers[0]` 2, `servers[0].server`
 *   3, `servers[0].server.meta` 4, `servers[0].server.meta.tools` 5.
 * - Paths in messages write indices as `[]`. An `expand_fields` entry matches a path exactly, with
 *   `[]` standing for any index (a concrete `[3]` only for that one), or as a prefix of a deeper
 *   path; an object holding an expanded path is opened rather than collapsed.
 */
export const STRING_LIMIT = 200;
export const DEEP_DEPTH = 5;
export const DEEP_JSON_LIMIT = 500;

/**
 * How a path relates to the expand list: inside an expanded field, on the way to one, or neither.
 * `wild` writes indices as [], `concrete` as [N].
 */
function relation(wild: string, concrete: string, expand: readonly string[]): 'expanded' | 'ancestor' | 'none' {
  let ancestor = false;
  for (const entry of expand) {
    for (const path of wild === concrete ? [wild] : [wild, concrete]) {
      if (path === entry || path.startsWith(`${entry}.`) || path.startsWith(`${entry}[`)) return 'expanded';
      if (entry.startsWith(`${path}.`) || entry.startsWith(`${path}[`)) ancestor = true;
    }
  }
  return ancestor ? 'ancestor' : 'none';
}

/** Whether JSON.stringify(value) is longer than `limit`, without building the whole string. */
export function jsonLongerThan(value: unknown, limit: number): boolean {
  let length = 0;
  const visit = (v: unknown): boolean => {
    if (v === null || typeof v !== 'object') {
      length += typeof v === 'string' ? JSON.stringify(v).length : v === undefined ? 4 : String(JSON.stringify(v)).length;
      return length > limit;
    }
    if (Array.isArray(v)) {
      length += 2 + Math.max(0, v.length - 1);
      if (length > limit) return true;
      for (const item of v) if (visit(item === undefined || typeof item === 'function' ? null : item)) return true;
      return false;
    }
    const entries = Object.entries(v).filter(([, x]) => x !== undefined && typeof x !== 'function');
    length += 2 + Math.max(0, entries.length - 1);
    for (const [key, x] of entries) {
      length += JSON.stringify(key).length + 1;
      // Checked before going down: a deeply nested value is long long before its bottom.
      if (length > limit || visit(x)) return true;
    }
    return length > limit;
  };
  return visit(value);
}

export function truncateResponse<T>(value: T, expandFields: readonly string[] = []): T {
  const expand = expandFields.length > 0;
  // Paths are built as the walk goes down (two spellings: [] and [N]), since only long strings
  // and deep objects need them; building them per node from segment lists cost half the time.
  const walk = (node: unknown, depth: number, wild: string, concrete: string): unknown => {
    if (typeof node === 'string') {
      if (node.length <= STRING_LIMIT || (expand && relation(wild, concrete, expandFields) === 'expanded')) return node;
      return `${node.slice(0, STRING_LIMIT)}... [TRUNCATED - use expand_fields: ["${wild}"] to see full content]`;
    }
    if (node === null || typeof node !== 'object') return node;
    if (depth >= DEEP_DEPTH) {
      const rel = expand ? relation(wild, concrete, expandFields) : 'none';
      if (rel === 'expanded') return node;
      if (rel === 'none' && jsonLongerThan(node, DEEP_JSON_LIMIT)) {
        return `[DEEP OBJECT TRUNCATED - use expand_fields: ["${wild}"] to see full content]`;
      }
    }
    if (Array.isArray(node)) {
      const wildChild = `${wild}[]`;
      return node.map((item, i) => walk(item, depth + 1, wildChild, `${concrete}[${i}]`));
    }
    const out: Record<string, unknown> = {};
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      const child = (node as Record<string, unknown>)[key];
      out[key] = walk(child, depth + 1, wild === '' ? key : `${wild}.${key}`, concrete === '' ? key : `${concrete}.${key}`);
    }
    return out;
  };
  return walk(value, 0, '', '') as T;
}
