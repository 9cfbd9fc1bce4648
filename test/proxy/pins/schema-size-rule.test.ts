import { describe, expect, it } from 'vitest';
import { DECLARATION_DEFAULTS } from '../../../src/code/declaration-limits.js';
import { scanTools } from '../../../src/proxy/pins/scan.js';
import { expandedBytes, oversizedSchemas, SCHEMA_SIZE_RULE } from '../../../src/proxy/pins/schema-size-rule.js';

/**
 * MCPK016 schema-expansion: a schema whose $refs, written out, pass what a declaration may be is
 * reported at review (server scan, diff, approve), measured without building the expansion.
 */

const selfReferences = (n: number) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { $ref: '#' }])) });

describe('expandedBytes: the JSON size with every $ref written out, to 8 levels', () => {
  it.each([
    [
      'no $ref: its own JSON size',
      { type: 'object', properties: { a: { type: 'string' } } },
      JSON.stringify({ type: 'object', properties: { a: { type: 'string' } } }).length,
      1000,
    ],
    [
      'a $ref to a definition counts the definition where it stands',
      { $defs: { s: { type: 'string' } }, properties: { a: { $ref: '#/$defs/s' } } },
      JSON.stringify({ $defs: { s: { type: 'string' } }, properties: { a: { type: 'string' } } }).length,
      1000,
    ],
    ['an unresolved $ref is itself', { $ref: 'https://example.com/x.json' }, 37, 1000],
    ['the finding: past any cap, given as cap + 1', selfReferences(22), 20_001, 20_000],
    ['one self-reference, eight times over: small', selfReferences(1), 351, 20_000],
  ])('%s', (_what, schema, want, cap) => {
    expect(expandedBytes(schema, cap)).toBe(want);
  });

  it('reads each part of the schema a bounded number of times, whatever it expands to', () => {
    let reads = 0;
    const seen = new WeakMap<object, object>();
    const wrap = (value: unknown): unknown => {
      if (!value || typeof value !== 'object') return value;
      if (!seen.has(value)) seen.set(value, new Proxy(value, { get: (t, k, r) => (reads++, wrap(Reflect.get(t, k, r))) }));
      return seen.get(value);
    };
    const bomb = selfReferences(22);
    expect(expandedBytes(wrap(bomb), Number.MAX_SAFE_INTEGER - 1)).toBeGreaterThan(1e9);
    expect(reads).toBeLessThan(2000);
  });

  it('a schema nested past any reading counts as past the cap', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 10_000; i++) deep = { type: 'array', items: deep };
    expect(expandedBytes(deep, 1_000_000)).toBe(1_000_001);
  });
});

describe('the scanner reports it, for inputSchema and outputSchema', () => {
  it("the finding's tool is a medium finding that says what and where", () => {
    const findings = scanTools([
      {
        server: 'evil',
        tool: 'lookup',
        definition: { name: 'lookup', description: 'Looks a thing up.', inputSchema: selfReferences(22), outputSchema: selfReferences(3) },
      },
      { server: 'fine', tool: 'echo', definition: { name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } } },
    ]).filter((f) => f.rule === SCHEMA_SIZE_RULE.id);
    expect(findings.map((f) => [f.server, f.tool, f.field, f.severity])).toEqual([
      ['evil', 'lookup', 'inputSchema', 'medium'],
      ['evil', 'lookup', 'outputSchema', 'medium'],
    ]);
    expect(findings[0]!.message).toMatch(/^Its inputSchema \(\d+ bytes as published\) is over 20000 bytes with its \$refs written out \(to 8 levels\)/);
  });

  it('the cap is the declarations default', () => {
    expect(oversizedSchemas({ inputSchema: selfReferences(22) })).toHaveLength(1);
    expect(oversizedSchemas({ inputSchema: selfReferences(1) }, DECLARATION_DEFAULTS.maxDeclarationBytes)).toEqual([]);
  });
});
