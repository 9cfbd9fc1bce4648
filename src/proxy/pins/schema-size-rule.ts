import { DECLARATION_DEFAULTS } from '../../code/declaration-limits.js';
import { resolveRef } from '../../code/schema-type.js';
import type { ScanRule } from './rule-shape.js';

/**
 * The scanner's rule for a schema that expands past what a declaration may be: 300 bytes of
 * `$ref`s can stand for a type of billions of members. Code mode cuts its declaration
 * (code/schema-type.ts), but a person approving the server should see that the tool's schema is
 * built that way: another client that writes its `$ref`s out may stall on it. Measured without
 * building anything: each part of a schema is sized once per `$ref` level. Pure.
 */

/** `$ref`s written out to this many levels, as a generator of types does before it gives up on recursion. */
export const EXPANSION_LEVELS = 8;
/** Deeper than this, a schema counts as past any cap (nothing a person writes nests so). */
const MAX_NESTING = 64;

/** A tool's schema of 22 properties, each `{$ref: "#"}`: issue 66's finding. */
const SELF_REFERENCES = { type: 'object', properties: Object.fromEntries(Array.from({ length: 22 }, (_, i) => [`p${i}`, { $ref: '#' }])) };
/** Definitions that each name the next four times: no cycle, and still 4^8 copies of the last. */
const DOUBLING = {
  type: 'object',
  $defs: Object.fromEntries(
    Array.from({ length: 9 }, (_, i) => [
      `d${i}`,
      { type: 'object', properties: Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, { $ref: `#/$defs/d${i + 1}` }])) },
    ]),
  ),
  properties: { start: { $ref: '#/$defs/d0' } },
};
const LINKED_LIST = {
  type: 'object',
  $defs: { node: { type: 'object', properties: { value: { type: 'string' }, next: { $ref: '#/$defs/node' } }, required: ['value'] } },
  properties: { head: { $ref: '#/$defs/node' } },
};

export const SCHEMA_SIZE_RULE: ScanRule = {
  id: 'MCPK016',
  name: 'schema-expansion',
  kind: 'schema',
  severity: 'medium',
  summary: `An input or output schema that, its $refs written out (to ${EXPANSION_LEVELS} levels), is larger than a declaration may be (serve.code.max_declaration_bytes, ${DECLARATION_DEFAULTS.maxDeclarationBytes} by default): code mode cuts it, and a client that writes its $refs out gets a type that large or larger.`,
  help: 'mcpkit server diff shows the schema; a tool needs no $ref that refers back to the schema it is in many times over. Approve only a server you trust, or hide the tool (mcpkit server set-tools).',
  examples: {
    match: [
      { evil: [{ name: 'lookup', description: 'Looks a thing up.', inputSchema: SELF_REFERENCES }] },
      { evil: [{ name: 'walk', inputSchema: DOUBLING }] },
    ],
    clean: [
      { lists: [{ name: 'append', description: 'Appends to a list.', inputSchema: LINKED_LIST }] },
      { plain: [{ name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } }] },
    ],
  },
};

/**
 * The JSON size of a schema with each local `$ref` written out in its place, recursion to
 * EXPANSION_LEVELS, counted up to `limit` + 1 (a larger one is `limit` + 1). Each object is sized
 * once per level, so the work is that of the schema as published, whatever it expands to. Pure.
 */
export function expandedBytes(root: unknown, limit: number): number {
  const sized = new Map<object, number[]>();
  const over = limit + 1;
  const measure = (node: unknown, levels: number, nesting: number): number => {
    if (!node || typeof node !== 'object') return Buffer.byteLength(JSON.stringify(node) ?? 'null');
    if (nesting > MAX_NESTING) return over;
    const known = sized.get(node)?.[levels];
    if (known !== undefined) return known;
    let total = 2;
    const ref = (node as { $ref?: unknown }).$ref;
    if (!Array.isArray(node) && typeof ref === 'string' && resolveRef(root, ref) !== undefined) {
      total = levels > 0 ? measure(resolveRef(root, ref), levels - 1, nesting + 1) : 9;
    } else {
      // As JSON.stringify writes it: `"key":value` (or `value` in an array), with commas between.
      const entries = Object.entries(node);
      total += Math.max(0, entries.length - 1);
      for (const [key, value] of entries) {
        total += (Array.isArray(node) ? 0 : Buffer.byteLength(JSON.stringify(key)) + 1) + measure(value, levels, nesting + 1);
        if (total > limit) break;
      }
    }
    total = Math.min(total, over);
    const own = sized.get(node) ?? [];
    own[levels] = total;
    sized.set(node, own);
    return total;
  };
  return measure(root, EXPANSION_LEVELS, 0);
}

/** The schemas of a tool's definition that expand past `cap`, each with what a person is told. Pure. */
export function oversizedSchemas(definition: unknown, cap = DECLARATION_DEFAULTS.maxDeclarationBytes): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    const schema = definition && typeof definition === 'object' ? (definition as Record<string, unknown>)[field] : undefined;
    if (!schema || typeof schema !== 'object' || expandedBytes(schema, cap) <= cap) continue;
    let published = 'size unknown';
    try {
      published = `${Buffer.byteLength(JSON.stringify(schema))} bytes as published`;
    } catch {
      // Nested past the engine's stack: it is over the cap all the same.
    }
    out.push({
      field,
      message: `Its ${field} (${published}) is over ${cap} bytes with its $refs written out (to ${EXPANSION_LEVELS} levels): code mode's declaration of it is cut, and a client that writes its $refs out gets a type that large or larger.`,
    });
  }
  return out;
}
