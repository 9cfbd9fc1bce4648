import { describe, expect, it } from 'vitest';
import { MAX_NESTING, nestedDeeperThan, nestingRefusal } from '../../src/core/nesting.js';
import { deepModernAnswer } from '../../src/mcp/pipeline/deep-requests.js';

/** `levels` arrays or objects deep, built without recursion. */
function nested(levels: number, kind: 'object' | 'array' = 'object'): unknown {
  let value: unknown = kind === 'object' ? {} : [];
  for (let i = 1; i < levels; i++) value = kind === 'object' ? { n: value } : [1, value];
  return value;
}

describe('nestedDeeperThan: how deep a value nests, without recursion', () => {
  it.each([
    ['a scalar', 'text', 0, false],
    ['null', null, 0, false],
    ['an empty object', {}, 1, false],
    ['an empty object, limit 0', {}, 0, true],
    ['64 objects', nested(64), 64, false],
    ['65 objects', nested(65), 64, true],
    ['65 arrays', nested(65, 'array'), 64, true],
    ['wide and shallow', { a: Array.from({ length: 10_000 }, (_, i) => ({ i })) }, 3, false],
    ['one deep branch among shallow ones', { a: 1, b: [{}, {}], c: nested(10) }, 10, true],
    ['100,000 levels (no stack overflow)', nested(100_000), 64, true],
  ])('%s', (_what, value, limit, deeper) => {
    expect(nestedDeeperThan(value, limit)).toBe(deeper);
  });

  it('the limit defaults to MAX_NESTING', () => {
    expect(nestedDeeperThan(nested(MAX_NESTING))).toBe(false);
    expect(nestedDeeperThan(nested(MAX_NESTING + 1))).toBe(true);
  });
});

describe('nestingRefusal and deepModernAnswer: what a call too deep is answered', () => {
  it('names the field and the limit', () => {
    expect(nestingRefusal('t', nested(65), undefined)).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'arguments', max_depth: 64 } });
    expect(nestingRefusal('t', {}, nested(65))).toMatchObject({ code: 'INVALID_INPUT', details: { field: '_meta' } });
    expect(nestingRefusal('t', nested(64), nested(64))).toBeUndefined();
  });

  it.each([
    ['a tools/call too deep: an INVALID_INPUT result', { id: 1, method: 'tools/call', params: { name: 't', arguments: nested(100) } }, 200, 'result'],
    ['another method too deep: invalid params', { id: 2, method: 'prompts/get', params: { name: 'p', arguments: nested(100) } }, 400, 'error'],
    ['within the limit: undefined', { id: 3, method: 'tools/call', params: { name: 't', arguments: nested(64) } }, undefined, undefined],
  ])('%s', (_what, body, status, key) => {
    const answered = deepModernAnswer(body);
    expect(answered?.status).toBe(status);
    if (key) expect(answered?.answer).toHaveProperty(key);
  });
});
