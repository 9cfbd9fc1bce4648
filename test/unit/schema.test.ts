import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/core/errors.js';
import { inputJsonSchema, parseInput } from '../../src/core/schema.js';

describe('inputJsonSchema (zod -> JSON Schema for MCP)', () => {
  it.each([
    ['string', z.string().describe('Text'), { type: 'string', description: 'Text' }],
    ['number', z.number(), { type: 'number' }],
    ['integer (safe-int bounds dropped)', z.int(), { type: 'integer' }],
    ['bounded integer keeps its bounds', z.int().min(1).max(100), { type: 'integer', minimum: 1, maximum: 100 }],
    ['boolean', z.boolean(), { type: 'boolean' }],
    ['enum', z.enum(['a', 'b']), { type: 'string', enum: ['a', 'b'] }],
    ['array of strings', z.array(z.string()), { type: 'array', items: { type: 'string' } }],
    [
      'nested object',
      z.strictObject({ k: z.number() }),
      { type: 'object', properties: { k: { type: 'number' } }, required: ['k'], additionalProperties: false },
    ],
  ])('%s', (_name, field, expected) => {
    const schema = inputJsonSchema(z.strictObject({ f: field }));
    expect(schema.$schema).toBeUndefined();
    expect(schema.type).toBe('object');
    expect(schema.properties!.f).toEqual(expected);
    expect(schema.required).toEqual(['f']);
    expect(schema.additionalProperties).toBe(false);
  });

  it('treats fields with defaults as optional input and publishes the default', () => {
    const schema = inputJsonSchema(z.strictObject({ limit: z.int().default(20), q: z.string().optional() }));
    expect(schema.required ?? []).toEqual([]);
    expect(schema.properties!.limit).toEqual({ type: 'integer', default: 20 });
  });
});

describe('parseInput', () => {
  const schema = z.strictObject({ query: z.string().min(1), limit: z.int().min(1).default(10) });

  it('returns typed input with defaults applied', () => {
    expect(parseInput('demo', schema, { query: 'x' })).toEqual({ query: 'x', limit: 10 });
  });

  it('treats missing arguments as an empty object', () => {
    expect(() => parseInput('demo', schema, undefined)).toThrow(/query/);
  });

  it('lists every issue with its path in an INVALID_INPUT error', () => {
    let caught: unknown;
    try {
      parseInput('demo', schema, { query: '', limit: 0, extra: true });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ToolError);
    const error = caught as ToolError;
    expect(error.code).toBe('INVALID_INPUT');
    const paths = (error.details!.issues as { path: string }[]).map((i) => i.path).sort();
    expect(paths).toEqual(['(root)', 'limit', 'query']);
    expect(error.message).toMatch(/Invalid arguments for demo: .*query/);
    expect(JSON.stringify(error.details)).toContain('extra');
  });
});
