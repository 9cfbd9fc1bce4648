import { ts, type TypeScript } from '../helpers/typescript.js';
import { describe, expect, it } from 'vitest';
import { DECLARATION_DEFAULTS, declarationLimitsOf, WALK_BOUNDS } from '../../src/code/declaration-limits.js';
import { declarationsAnswer, declarationsOf, toolMember, typeOf, type DeclaredTool } from '../../src/code/declarations.js';

/**
 * Declarations are bounded in size and in work whatever schema an upstream publishes (issue 66,
 * finding 1: 22 properties of `{$ref: "#"}`, 300 bytes, made 322 MB in 8.8 s). What is cut is
 * `unknown` with a note saying what and why; the text stays TypeScript.
 */

/** The finding's schema: p0..p21, each the whole schema again. */
const BOMB = { type: 'object', properties: Object.fromEntries(Array.from({ length: 22 }, (_, i) => [`p${i}`, { $ref: '#' }])) };

/**
 * A schema whose every read is counted: the work a walk does, seen from outside it. The same
 * object always gives the same proxy (a walk may tell a schema by its identity).
 */
function counted(schema: unknown): { schema: unknown; reads: () => number } {
  let reads = 0;
  const proxies = new WeakMap<object, object>();
  const wrap = (value: unknown): unknown => {
    if (!value || typeof value !== 'object') return value;
    let proxy = proxies.get(value);
    if (!proxy) {
      proxy = new Proxy(value, {
        get: (target, key, receiver) => (reads++, wrap(Reflect.get(target, key, receiver))),
        has: (target, key) => (reads++, Reflect.has(target, key)),
        ownKeys: (target) => {
          const keys = Reflect.ownKeys(target);
          reads += keys.length;
          return keys;
        },
      });
      proxies.set(value, proxy);
    }
    return proxy;
  };
  return { schema: wrap(schema), reads: () => reads };
}

/**
 * Syntax errors of a declaration file: a cut must leave TypeScript. The parser's own diagnostics,
 * the ones transpileModule reports for a .ts file, without the program and emit it builds around
 * them (about ten times the CPU: 600 transpiles were most of this file's 8 CPU-s).
 */
function syntaxErrors(text: string): string[] {
  const file = ts.createSourceFile('declarations.ts', text, ts.ScriptTarget.ES2022) as TypeScript.SourceFile & { parseDiagnostics?: TypeScript.Diagnostic[] };
  if (!file.parseDiagnostics) throw new Error('this TypeScript no longer keeps parseDiagnostics on a source file: check syntax another way');
  return file.parseDiagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

it('the syntax check sees a syntax error (it is what every "stays TypeScript" here rests on)', () => {
  expect(syntaxErrors('type T = { a?: ;')).toEqual(['Type expected.', "'}' expected."]);
  expect(syntaxErrors('declare const t: { a?: unknown /* cut */; };')).toEqual([]);
});

const tool = (inputSchema: unknown, extra: Partial<DeclaredTool> = {}): DeclaredTool => ({
  group: 'evil',
  name: 'bomb',
  published: 'evil__bomb',
  inputSchema,
  ...extra,
});

describe('what is cut, and the note that says why', () => {
  const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`k${i}`, { type: 'string' }])) };
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 12; i++) deep = { type: 'object', properties: { d: deep } };
  it.each([
    [
      'a $ref to the whole schema (the finding)',
      BOMB,
      /^\{\n {2}p0\?: unknown \/\* cut: recursive \$ref "#" \*\/;\n[\s\S]*p21\?: unknown \/\* cut: recursive \$ref "#" \*\/;\n\}$/,
    ],
    [
      'more properties than one object may have',
      wide,
      /k199\?: string;\n {2}\/\* cut: 50 more properties \(over 200\) \*\/\n {2}\[key: string\]: unknown;\n\}$/,
    ],
    ['nesting past the depth', deep, /d\?: unknown \/\* cut: nested deeper than 8 \*\/;/],
    ['an enum too long to read', { enum: Array.from({ length: 300 }, (_, i) => i) }, /^unknown \/\* cut: one of 300 values \(over 200\) \*\/$/],
    ['a union too wide', { anyOf: Array.from({ length: 201 }, (_, i) => ({ const: i })) }, /\| 199 \| unknown \/\* cut: 1 more choices \(over 200\) \*\/$/],
    ['a $ref that ends in the comment it is quoted in', { type: 'object', properties: { a: { $ref: '#*/x' } } }, /^\{\n {2}a\?: unknown;\n\}$/],
  ])('%s', (_what, schema, want) => {
    const written = typeOf(schema);
    expect(written).toMatch(want);
    expect(syntaxErrors(`type T = ${written};`)).toEqual([]);
  });

  it('work: a schema of many small parts stops at the walk budget, with a note', () => {
    // 60 x 60 x 2: each level a union of schemas that write almost nothing.
    const leaf = { anyOf: [{ type: 'null' }, { type: 'boolean' }] };
    const mid = { allOf: Array.from({ length: 60 }, () => leaf) };
    const schema = { oneOf: Array.from({ length: 60 }, () => mid) };
    const { schema: watched, reads } = counted(schema);
    const written = typeOf(watched);
    expect(written).toContain(`/* cut: too large to declare (over ${WALK_BOUNDS.maxNodes} parts) */`);
    expect(reads()).toBeLessThan(WALK_BOUNDS.maxNodes * 20);
  });

  it("size: a tool's declaration stops at max_declaration_bytes, says so, and stays whole TypeScript", () => {
    const schema = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`field${i}`, { type: 'string', description: 'x'.repeat(300) }])),
    };
    const member = toolMember(tool(schema), '', 8000);
    expect(Buffer.byteLength(member)).toBeLessThanOrEqual(8000);
    expect(member).toContain('/* cut: max_declaration_bytes (8000) reached */');
    expect(member).toMatch(/^\/\*\* Its schema is cut where a comment says so \(size\)\. \*\//);
    expect(syntaxErrors(`declare const t: {\n${member}\n};`)).toEqual([]);
  });

  it('a description larger than the cap is cut, and so is one at the bottom of a deep schema', () => {
    const member = toolMember(tool({ type: 'object' }, { description: 'd'.repeat(1_000_000) }), '', 5000);
    expect(Buffer.byteLength(member)).toBeLessThanOrEqual(5000);
    expect(member).toContain('[cut: longer than max_declaration_bytes allows]');
  });
});

describe('the finding: p0..p21 of {$ref: "#"}', () => {
  it('declares in a few kilobytes after reading the schema a bounded number of times', () => {
    const { schema, reads } = counted(BOMB);
    const member = toolMember(tool(schema));
    expect(Buffer.byteLength(member)).toBeLessThan(3000);
    expect(member.match(/recursive \$ref "#"/g)).toHaveLength(22);
    expect(reads()).toBeLessThan(2000);
  });

  it('the same as a result type, and in an answer beside an ordinary tool', () => {
    const answer = declarationsAnswer([tool(BOMB, { outputSchema: BOMB }), tool({ type: 'object', properties: { a: { type: 'string' } } }, { name: 'ok' })]);
    expect(answer.omitted).toEqual([]);
    expect(Buffer.byteLength(answer.text)).toBeLessThan(6000);
    expect(syntaxErrors(answer.text)).toEqual([]);
  });
});

describe('made once per definition', () => {
  it('a tool with an anchor (its catalog entry) is walked once, however often it is declared', () => {
    const { schema, reads } = counted({ type: 'object', properties: { a: { type: 'string' }, b: { $ref: '#/properties/a' } } });
    const declared = tool(schema, { anchor: {} });
    const first = toolMember(declared, '    ');
    const after = reads();
    expect(after).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) expect(toolMember({ ...declared }, '    ')).toBe(first);
    expect(declarationsOf([declared])).toContain(first);
    expect(reads()).toBe(after);
  });

  it('a new anchor (a new listing) is walked again', () => {
    const { schema, reads } = counted({ type: 'object', properties: { a: { type: 'string' } } });
    toolMember(tool(schema, { anchor: {} }));
    const once = reads();
    toolMember(tool(schema, { anchor: {} }));
    expect(reads()).toBe(once * 2);
  });
});

describe('an answer within max_answer_bytes', () => {
  it('declares the tools that fit, and names the rest', () => {
    const big = (i: number) =>
      tool(
        { type: 'object', properties: Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`f${k}`, { type: 'string', description: 'y'.repeat(200) }])) },
        { name: `t${i}`, published: `evil__t${i}` },
      );
    const tools = Array.from({ length: 30 }, (_, i) => big(i));
    const answer = declarationsAnswer(tools, { maxDeclarationBytes: 20_000, maxAnswerBytes: 40_000 });
    expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(40_000);
    expect(answer.declared.length).toBeGreaterThan(0);
    expect(answer.declared.length + answer.omitted.length).toBe(30);
    expect(answer.text).toContain(`// Not declared here, past max_answer_bytes (40000) or the work of one answer: "${answer.omitted[0]!.published}"`);
    expect(syntaxErrors(answer.text)).toEqual([]);
  });

  it('the walks of one answer are bounded too: tools made to spend their walk are declared a few at a time, the rest named, and the next answer goes on', () => {
    const spender = {
      oneOf: Array.from({ length: 60 }, () => ({ allOf: Array.from({ length: 60 }, () => ({ anyOf: [{ type: 'null' }, { type: 'boolean' }] })) })),
    };
    const tools = Array.from({ length: 50 }, (_, i) => tool(spender, { name: `s${i}`, published: `evil__s${i}`, anchor: {} }));
    const first = declarationsAnswer(tools);
    expect(first.declared.length).toBeGreaterThan(0);
    expect(first.declared.length).toBeLessThanOrEqual(11);
    expect(first.omitted.length).toBe(50 - first.declared.length);
    expect(first.text).toContain('or the work of one answer');
    const second = declarationsAnswer(tools);
    expect(second.declared.length).toBeGreaterThan(first.declared.length);
  });

  it('a describe whose one tool is larger than the answer may be is cut to fit it', () => {
    const huge = tool({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 100 }, (_, k) => [`f${k}`, { type: 'string', description: 'z'.repeat(300) }])),
    });
    const answer = declarationsAnswer([huge], { maxDeclarationBytes: 100_000, maxAnswerBytes: 10_000 });
    expect(answer.declared).toHaveLength(1);
    expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(10_000);
  });

  it('settings over the defaults', () => {
    expect(declarationLimitsOf(undefined)).toEqual(DECLARATION_DEFAULTS);
    expect(declarationLimitsOf({ max_answer_bytes: 5000 })).toEqual({ maxDeclarationBytes: DECLARATION_DEFAULTS.maxDeclarationBytes, maxAnswerBytes: 5000 });
  });
});

/** mulberry32: the same schemas on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fuzzed schema's leaves, each made new when picked (a walk may tell a schema by its identity). */
const LEAVES: readonly ((length: number) => unknown)[] = [
  (length) => ({ type: 'string', description: 'a'.repeat(length) }),
  () => ({ type: 'integer' }),
  () => ({ const: 'c' }),
  () => true,
  () => ({}),
  () => ({ type: ['string', 'null'] }),
];

/** A hostile schema of one of the shapes a walk can be made to blow up on, mixed. */
function fuzzSchema(next: () => number): Record<string, unknown> {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  // The schema's own size is bounded (a few thousand parts): what it expands to is not.
  let parts = 0;
  const count = (max: number) => {
    const n = 1 + Math.floor(next() ** 2 * Math.max(0, Math.min(max, 2500 - parts)));
    parts += n;
    return n;
  };
  const defs: Record<string, unknown> = {};
  const defNames = Array.from({ length: count(12) }, (_, i) => `d${i}`);
  const node = (depth: number): unknown => {
    const kind =
      depth > 40 || ++parts > 2500 ? 'leaf' : pick(['leaf', 'ref', 'root', 'object', 'wide', 'array', 'anyOf', 'oneOf', 'allOf', 'enum', 'deep'] as const);
    switch (kind) {
      case 'leaf': {
        // The description's length is drawn before the pick, as when all six were built first.
        const length = Math.floor(next() * 400);
        return pick(LEAVES)(length);
      }
      case 'ref':
        return { $ref: `#/$defs/${pick(defNames)}` };
      case 'root':
        return { $ref: '#' };
      case 'object':
      case 'wide': {
        const n = kind === 'wide' ? count(3000) : count(25);
        return {
          type: 'object',
          properties: Object.fromEntries(
            Array.from({ length: n }, (_, i) => [
              `p${i}`,
              next() < 0.7 || kind === 'wide' ? { $ref: pick(['#', `#/$defs/${pick(defNames)}`]) } : node(depth + 1),
            ]),
          ),
          required: next() < 0.5 ? ['p0'] : [],
          ...(next() < 0.2 ? { additionalProperties: node(depth + 1) } : {}),
        };
      }
      case 'array':
        return next() < 0.5
          ? { type: 'array', items: node(depth + 1) }
          : { type: 'array', prefixItems: Array.from({ length: count(300) }, () => node(depth + 1)) };
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        return { [kind]: Array.from({ length: count(400) }, () => (next() < 0.6 ? { $ref: `#/$defs/${pick(defNames)}` } : node(depth + 1))) };
      case 'enum':
        return { enum: Array.from({ length: count(500) }, (_, i) => `v${i}`) };
      case 'deep': {
        let inner: unknown = node(depth + 30);
        for (let i = 0; i < count(200); i++) inner = { type: 'object', properties: { x: inner, y: { $ref: '#' } } };
        return inner;
      }
    }
  };
  // $defs chains: each definition refers to the next ones several times (a DAG that doubles), or back.
  defNames.forEach((name, i) => {
    const later = defNames.slice(i + 1);
    defs[name] =
      later.length && next() < 0.6
        ? { type: 'object', properties: Object.fromEntries(Array.from({ length: count(6) }, (_, k) => [`c${k}`, { $ref: `#/$defs/${pick(later)}` }])) }
        : node(1);
  });
  return { type: 'object', $defs: defs, properties: { root: node(0), again: { $ref: '#' } } };
}

describe('a fuzzer: 300 seeded hostile schemas', () => {
  const next = random(66);
  const schemas = Array.from({ length: 300 }, () => fuzzSchema(next));
  const caps = [DECLARATION_DEFAULTS.maxDeclarationBytes, 2000];

  it('every declaration within its cap, the walk reading each schema a bounded number of times, and TypeScript every time', () => {
    for (const [i, raw] of schemas.entries()) {
      for (const cap of caps) {
        const input = counted(raw);
        const output = counted(raw);
        const member = toolMember(tool(input.schema, { outputSchema: output.schema, description: 'fuzzed' }), '    ', cap);
        expect(Buffer.byteLength(member), `schema ${i} at ${cap}`).toBeLessThanOrEqual(cap);
        // Every schema visited is a few reads (its keywords, its properties' names): bounded by the walk's budget, whatever the shape.
        expect(input.reads() + output.reads(), `schema ${i}`).toBeLessThan(WALK_BOUNDS.maxNodes * 60);
        expect(syntaxErrors(`declare const tools: {\n  evil: {\n${member}\n  };\n};`), `schema ${i} at ${cap}`).toEqual([]);
      }
    }
  });

  it('every answer of them within max_answer_bytes', () => {
    const limits = { maxDeclarationBytes: 20_000, maxAnswerBytes: 60_000 };
    for (let at = 0; at < schemas.length; at += 25) {
      const batch = schemas.slice(at, at + 25).map((s, k) => tool(s, { name: `t${k}`, published: `evil__t${at + k}` }));
      const answer = declarationsAnswer(batch, limits);
      expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(limits.maxAnswerBytes);
      expect(answer.declared.length).toBeGreaterThan(0);
      expect(syntaxErrors(answer.text)).toEqual([]);
    }
  });
});
