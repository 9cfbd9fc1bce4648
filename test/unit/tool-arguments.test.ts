import { describe, expect, it } from 'vitest';
import { toolArguments } from '../../src/cli/args/tool-arguments.js';

describe('toolArguments: an input schema as a person reads it', () => {
  it.each([
    [{ type: 'string', description: 'd' }, 'string'],
    [{ type: 'array', items: { type: 'string' } }, 'string[]'],
    [{ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }, 'string | string[]'],
    [{ enum: ['auto', 'http'] }, '"auto" | "http"'],
    [{ type: ['string', 'null'] }, 'string | null'],
    [{ type: 'integer', minimum: 0, maximum: 20 }, 'integer (0..20)'],
    [{ type: 'integer', minimum: 1 }, 'integer (1..)'],
    [{}, 'any'],
  ])('%j is %s', (node, type) => {
    expect(toolArguments({ properties: { x: node } })[0]!.type).toBe(type);
  });

  it('keeps the schema order, says what is required and shows defaults as JSON', () => {
    const rows = toolArguments({
      properties: { b: { type: 'boolean', default: false }, a: { type: 'string', description: 'the a' } },
      required: ['a'],
    });
    expect(rows).toEqual([
      { argument: 'b', type: 'boolean', required: 'no', default: 'false', description: '' },
      { argument: 'a', type: 'string', required: 'yes', default: '', description: 'the a' },
    ]);
    expect(toolArguments(undefined)).toEqual([]);
  });
});
