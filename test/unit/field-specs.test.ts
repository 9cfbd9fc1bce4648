import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { coerceValue, fieldSpecs, inputFromCommandLine, inputFromPairs } from '../../src/cli/args/field-specs.js';
import { kebab } from '../../src/tool/command-line.js';
import { inputJsonSchema } from '../../src/core/schema.js';

const input = z.strictObject({
  query: z.string().describe('What to look for'),
  limit: z.int().min(1).default(20).describe('Most results'),
  ratio: z.number().optional(),
  verbose: z.boolean().default(false),
  color: z.boolean().default(true),
  sort: z.enum(['name', 'date']).default('name'),
  tags: z.array(z.string()).optional(),
  sizes: z.array(z.int()).optional(),
  filter: z.strictObject({ key: z.string() }).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  maybe: z.string().nullable().optional(),
  expand_fields: z.array(z.string()).optional(),
});
const specs = fieldSpecs(inputJsonSchema(input), { args: ['query'], chars: { limit: 'n' } });
const byField = Object.fromEntries(specs.map((s) => [s.field, s]));

describe('fieldSpecs (zod -> CLI flags and args)', () => {
  it.each([
    ['query', { kind: 'string', positional: true, required: true, multiple: false, description: 'What to look for' }],
    ['limit', { kind: 'integer', required: false, default: 20, char: 'n', flag: 'limit' }],
    ['ratio', { kind: 'number', required: false, multiple: false }],
    ['verbose', { kind: 'boolean', default: false }],
    ['color', { kind: 'boolean', default: true }],
    ['sort', { kind: 'string', options: ['name', 'date'], default: 'name' }],
    ['tags', { kind: 'string', multiple: true }],
    ['sizes', { kind: 'integer', multiple: true }],
    ['filter', { kind: 'json', multiple: false }],
    ['labels', { kind: 'json' }],
    ['maybe', { kind: 'string' }],
    ['expand_fields', { flag: 'expand-fields', kind: 'string', multiple: true }],
  ])('%s', (field, expected) => {
    expect(byField[field]).toMatchObject(expected);
  });
});

it('takes flag names the command sets', () => {
  const renamed = fieldSpecs(inputJsonSchema(z.strictObject({ args: z.array(z.string()) })), { flagNames: { args: 'arg' } });
  expect(renamed[0]).toMatchObject({ field: 'args', flag: 'arg', multiple: true });
});

describe('coerceValue', () => {
  it.each([
    ['string', '42', '42'],
    ['integer', '42', 42],
    ['integer', '-3', -3],
    ['number', '2.5', 2.5],
    ['boolean', 'true', true],
    ['boolean', 'no', false],
    ['json', '{"a":[1]}', { a: [1] }],
  ] as const)('%s %s', (kind, raw, expected) => {
    expect(coerceValue({ kind, flag: 'x' }, raw)).toEqual(expected);
  });

  it.each([
    ['integer', '4.5', /--x expects a whole number/],
    ['integer', 'ten', /whole number/],
    ['number', 'abc', /expects a number/],
    ['boolean', 'maybe', /true or false/],
    ['json', '{nope', /expects JSON/],
  ] as const)('refuses %s %s', (kind, raw, message) => {
    expect(() => coerceValue({ kind, flag: 'x' }, raw)).toThrow(message);
  });
});

describe('inputFromCommandLine', () => {
  it('maps kebab flags back to fields and leaves absent ones for zod defaults', () => {
    expect(inputFromCommandLine(specs, { 'expand-fields': ['a', 'b'], limit: 5 }, ['github'])).toEqual({
      query: 'github',
      expand_fields: ['a', 'b'],
      limit: 5,
    });
  });

  it('gives a trailing array argument the rest of the command line', () => {
    const rest = fieldSpecs(inputJsonSchema(z.strictObject({ name: z.string(), tools: z.array(z.string()) })), { args: ['name', 'tools'] });
    expect(inputFromCommandLine(rest, {}, ['github', 'a', 'b', 'c'])).toEqual({ name: 'github', tools: ['a', 'b', 'c'] });
  });
});

describe('inputFromPairs (call TOOL k=v)', () => {
  it.each([
    [['query=42'], { query: '42' }],
    [['limit=5'], { limit: 5 }],
    [['verbose=true'], { verbose: true }],
    [['tags=a,b'], { tags: ['a', 'b'] }],
    [['tags=["a,b"]'], { tags: ['a,b'] }],
    [['tags=a', 'tags=b'], { tags: ['a', 'b'] }],
    [['sizes=1,2'], { sizes: [1, 2] }],
    [['filter={"key":"v"}'], { filter: { key: 'v' } }],
    [['query=a=b'], { query: 'a=b' }],
    [['unknown=7'], { unknown: 7 }],
  ])('%j', (pairs, expected) => {
    expect(inputFromPairs(pairs, specs)).toEqual(expected);
  });

  it('refuses a word without =', () => {
    expect(() => inputFromPairs(['query'], specs)).toThrow(/not key=value/);
  });
});

describe('kebab', () => {
  it.each([
    ['expand_fields', 'expand-fields'],
    ['timeoutMs', 'timeout-ms'],
    ['q', 'q'],
  ])('%s -> %s', (a, b) => expect(kebab(a)).toBe(b));
});
