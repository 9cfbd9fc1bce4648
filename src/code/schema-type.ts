import { WALK_BOUNDS } from './declaration-limits.js';

/**
 * The TypeScript type a JSON Schema describes, written within a budget of bytes and of schemas
 * visited: an upstream's schema may be hostile, and a `$ref` that points back into the schema it
 * is in would otherwise be written out again and again (22 properties of `{$ref: "#"}` once made
 * 322 MB). What the walk does not write is `unknown` with a note (`/* cut: ... *\/`) that says what
 * was cut and why. Pure.
 */

type Schema = Record<string, unknown>;

/** Why a part of a schema was not written out. */
export type CutReason = 'recursive' | 'depth' | 'width' | 'work' | 'size';

/** What one declaration may still spend (its input's walk and its result's share it), and what it cut. */
export interface Budget {
  bytes: number;
  nodes: number;
  /** The setting's value, for the notes. */
  readonly cap: number;
  readonly cuts: Set<CutReason>;
}

export function budgetOf(bytes: number, cap = bytes): Budget {
  return { bytes, nodes: WALK_BOUNDS.maxNodes, cap, cuts: new Set() };
}

interface Walk {
  root: unknown;
  docs: boolean;
  budget: Budget;
  /** The schemas being written now: a `$ref` to one of them is recursive. */
  inside: Set<object>;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `name`, or `"name"` where it is not an identifier. */
export function memberName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** Text that cannot end a comment or a line it is put in (`*\/`, U+2028 and U+2029 end them). */
export function commentSafe(text: string): string {
  return text.replace(/\*\//g, '*\\/').replace(/[\u2028\u2029]/g, ' ');
}

/** A description as JSDoc lines at `indent` (nothing for none); `*\/` in it cannot end the comment. */
export function doc(text: string | undefined, indent: string, extra: readonly string[] = []): string {
  const lines = [...(text?.trim() ? text.trim().split(/\r?\n/) : []), ...extra].map((line) => commentSafe(line).trimEnd());
  if (!lines.length) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line ? ` ${line}` : ''}`).join('\n')}\n${indent} */\n`;
}

export function spend(budget: Budget, text: string): void {
  budget.bytes -= Buffer.byteLength(text);
}

/** A text cut to what the budget can still take (half of it: the rest of the declaration needs room too). */
export function clipped(text: string | undefined, budget: Budget): string | undefined {
  if (text === undefined) return undefined;
  const room = Math.max(0, Math.floor(budget.bytes / 2));
  const out = text.length > room ? `${text.slice(0, room)} [cut: longer than max_declaration_bytes allows]` : text;
  spend(budget, out);
  return out;
}

/** The TypeScript type a JSON Schema describes, at `indent` (for objects spread over lines). */
export function typeOf(schema: unknown, options: { indent?: string; docs?: boolean; budget?: Budget } = {}): string {
  const walk: Walk = { root: schema, docs: options.docs ?? true, budget: options.budget ?? budgetOf(Infinity), inside: new Set() };
  return write(schema, options.indent ?? '', walk, 0);
}

/** Why the walk stops before the next schema, if it does: out of work, or of bytes. */
function spent(budget: Budget): CutReason | undefined {
  return budget.nodes <= 0 ? 'work' : budget.bytes <= 0 ? 'size' : undefined;
}

const REASONS: Record<Exclude<CutReason, 'recursive' | 'width'>, (budget: Budget) => string> = {
  work: () => `too large to declare (over ${WALK_BOUNDS.maxNodes} parts)`,
  size: (budget) => `max_declaration_bytes (${budget.cap}) reached`,
  depth: () => `nested deeper than ${WALK_BOUNDS.maxDepth}`,
};

/** A note of what was cut and why; counted as cut. */
function note(walk: Walk, reason: CutReason, what?: string): string {
  walk.budget.cuts.add(reason);
  const said = `/* cut: ${commentSafe(what ?? REASONS[reason as keyof typeof REASONS](walk.budget))} */`;
  spend(walk.budget, said);
  return said;
}

const cutType = (walk: Walk, reason: CutReason, what?: string) => `${leaf(walk, 'unknown ')}${note(walk, reason, what)}`;

function leaf(walk: Walk, text: string): string {
  spend(walk.budget, text);
  return text;
}

function write(schema: unknown, indent: string, walk: Walk, depth: number): string {
  if (schema === true || schema === undefined) return leaf(walk, 'unknown');
  if (schema === false) return leaf(walk, 'never');
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return leaf(walk, 'unknown');
  const stop = spent(walk.budget) ?? (depth > WALK_BOUNDS.maxDepth ? 'depth' : undefined);
  if (stop) return cutType(walk, stop);
  walk.budget.nodes--;
  // Only an object graph made in this process can hold itself; a parsed schema recurses by $ref.
  if (walk.inside.has(schema)) return cutType(walk, 'recursive', 'recursive: the type it is inside');
  walk.inside.add(schema);
  try {
    return shapeOf(schema as Schema, indent, walk, depth);
  } finally {
    walk.inside.delete(schema);
  }
}

function shapeOf(s: Schema, indent: string, walk: Walk, depth: number): string {
  const next = (sub: unknown) => write(sub, indent, walk, depth + 1);
  if (typeof s.$ref === 'string') {
    const target = resolveRef(walk.root, s.$ref);
    if (target && typeof target === 'object' && walk.inside.has(target)) return cutType(walk, 'recursive', `recursive $ref ${quoted(s.$ref)}`);
    return next(target);
  }
  if ('const' in s) return leaf(walk, literal(s.const));
  if (Array.isArray(s.enum)) return enumOf(s.enum, walk);
  for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[key])) return union(listOf(s[key] as unknown[], next, walk, 'choices'));
  if (Array.isArray(s.allOf)) return listOf(s.allOf as unknown[], next, walk, 'parts').join(' & ') || 'unknown';
  const types = Array.isArray(s.type) ? (s.type as unknown[]) : s.type !== undefined ? [s.type] : s.properties ? ['object'] : s.items ? ['array'] : [];
  if (!types.length) return leaf(walk, 'unknown');
  return union(
    types.slice(0, 8).map((type) => {
      switch (type) {
        case 'string':
        case 'number':
        case 'boolean':
        case 'null':
          return leaf(walk, type);
        case 'integer':
          return leaf(walk, 'number');
        case 'array':
          return arrayOf(s, next, walk);
        case 'object':
          return objectOf(s, indent, walk, depth);
        default:
          return leaf(walk, 'unknown');
      }
    }),
  );
}

const quoted = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);

/** A value as a TypeScript literal type; one too long to read is `unknown`. */
function literal(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // Nested past the engine's stack, or a BigInt: no literal to write.
  }
  return text === undefined ? 'unknown' : text.length > 1000 ? `unknown /* a value of ${text.length} characters */` : commentSafe(text);
}

function enumOf(values: unknown[], walk: Walk): string {
  if (values.length > WALK_BOUNDS.maxWidth) return cutType(walk, 'width', `one of ${values.length} values (over ${WALK_BOUNDS.maxWidth})`);
  walk.budget.nodes -= values.length;
  return values.length ? leaf(walk, values.map(literal).join(' | ')) : leaf(walk, 'never');
}

/** Members of a list written while width and budget allow; what is left is one note. */
function listOf(items: unknown[], next: (sub: unknown) => string, walk: Walk, noun: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (; i < items.length && i < WALK_BOUNDS.maxWidth && !spent(walk.budget); i++) {
    spend(walk.budget, ' | ');
    out.push(next(items[i]));
  }
  if (i < items.length) {
    const reason = spent(walk.budget) ?? 'width';
    out.push(cutType(walk, reason, reason === 'width' ? `${items.length - i} more ${noun} (over ${WALK_BOUNDS.maxWidth})` : undefined));
  }
  return out;
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.join(' | ') || 'never';
}

function arrayOf(s: Schema, next: (sub: unknown) => string, walk: Walk): string {
  if (Array.isArray(s.prefixItems)) return `[${listOf(s.prefixItems as unknown[], next, walk, 'items').join(', ')}]`;
  const item = next(s.items);
  spend(walk.budget, '()[]');
  return /[|&\s]/.test(item) && !item.startsWith('{') ? `(${item})[]` : `${item}[]`;
}

const isRecord = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

function objectOf(s: Schema, indent: string, walk: Walk, depth: number): string {
  const properties = isRecord(s.properties) ? s.properties : {};
  const names = Object.keys(properties);
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  // Reading a wide object's names is work too, each time a $ref comes back to it.
  walk.budget.nodes -= Math.floor((names.length + required.size) / 4);
  const inner = `${indent}  `;
  spend(walk.budget, `{\n\n${indent}}`);
  const members: string[] = [];
  let i = 0;
  for (; i < names.length && i < WALK_BOUNDS.maxWidth && !spent(walk.budget); i++) {
    const name = names[i]!;
    const sub = properties[name];
    const described = isRecord(sub) ? sub : {};
    const notes = described.default !== undefined ? [`Default: ${literal(described.default)}`] : [];
    const told = walk.docs ? clipped(typeof described.description === 'string' ? described.description : undefined, walk.budget) : undefined;
    const head = `${doc(told, inner, notes)}${inner}${memberName(name.length > 200 ? `${name.slice(0, 200)}...` : name)}${required.has(name) ? '' : '?'}: `;
    spend(walk.budget, `${head};\n`);
    members.push(`${head}${write(sub, inner, walk, depth + 1)};`);
  }
  if (i < names.length) {
    const reason = spent(walk.budget) ?? 'width';
    const what = reason === 'width' ? `${names.length - i} more properties (over ${WALK_BOUNDS.maxWidth})` : undefined;
    spend(walk.budget, `${inner}\n${inner}[key: string]: unknown;`);
    members.push(`${inner}${note(walk, reason, what)}\n${inner}[key: string]: unknown;`);
  }
  const extra = s.additionalProperties;
  if (isRecord(extra)) members.push(`${leaf(walk, `${inner}[key: string]: `)}${write(extra, inner, walk, depth + 1)};`);
  else if (!members.length && extra !== false) return 'Record<string, unknown>';
  return members.length ? `{\n${members.join('\n')}\n${indent}}` : '{}';
}

/** A local `$ref` (`#/$defs/X`, `#/definitions/X`), by the schema's own members only; anything else is unknown. */
export function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#') || ref.length > 1000) return undefined;
  let at: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!at || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
