import { describe, expect, it } from 'vitest';
import { AqlError, execute } from '../support/aql.mjs';

// The test server's AQL evaluator is itself tested, so the e2e tests rest on known behaviour.
const docs = [
  { _key: 'a', _id: 'users/a', name: 'Ada', age: 36, tags: ['math'] },
  { _key: 'b', _id: 'users/b', name: 'Bob', age: 20, tags: [] },
  { _key: 'c', _id: 'users/c', name: 'Cy', age: 36, tags: ['art', 'math'] },
];
const db = {
  has: (c: string) => c === 'users',
  all: (c: string) => (c === 'users' ? docs : []),
  count: () => docs.length,
  get: (_c: string, k: string) => docs.find((d) => d._key === k) ?? null,
};
const run = (q: string, bind: Record<string, unknown> = {}) => execute(q, bind, db as never).result;

describe('AQL evaluator of the test server', () => {
  it.each([
    ['RETURN 1 + 2 * 3', {}, [7]],
    ['FOR u IN users FILTER u.age == 36 SORT u.name DESC RETURN u.name', {}, ['Cy', 'Ada']],
    ['FOR u IN @@c FILTER u.age < @max RETURN u._key', { '@c': 'users', max: 30 }, ['b']],
    ['FOR u IN users SORT u.age, u.name LIMIT 1, 2 RETURN u.name', {}, ['Ada', 'Cy']],
    [
      'FOR u IN users COLLECT age = u.age WITH COUNT INTO n RETURN { age, n }',
      {},
      [
        { age: 20, n: 1 },
        { age: 36, n: 2 },
      ],
    ],
    ['FOR u IN users COLLECT WITH COUNT INTO n RETURN n', {}, [3]],
    ['FOR u IN users FILTER "math" IN u.tags RETURN u._key', {}, ['a', 'c']],
    ['FOR u IN users FILTER u.name LIKE "%y" RETURN u.name', {}, ['Cy']],
    ['LET names = (FOR u IN users RETURN u.name) RETURN LENGTH(names)', {}, [3]],
    ['RETURN DOCUMENT("users/b").name', {}, ['Bob']],
    ['FOR x IN 1..3 RETURN x * x', {}, [1, 4, 9]],
    ['RETURN DISTINCT 1', {}, [1]],
    ['FOR u IN users RETURN DISTINCT u.age', {}, [36, 20]],
    ['RETURN [null < false, false < 0, 0 < "", "" < [], [] < {}]', {}, [[true, true, true, true, true]]],
    ['RETURN MERGE({ a: 1 }, { b: 2 })', {}, [{ a: 1, b: 2 }]],
    ['FOR u IN users FILTER u.age > 30 AND NOT (u.name == "Cy") RETURN u.name', {}, ['Ada']],
    ['RETURN users[*].name', {}, [['Ada', 'Bob', 'Cy']]],
  ])('%s', (query, bind, expected) => {
    expect(run(query, bind)).toEqual(expected);
  });

  it.each([
    ['FOR x IN nope RETURN x', {}, 1203],
    ['FOR u IN users RETURN', {}, 1501],
    ['FOR u IN users FILTER u.a == @x RETURN u', {}, 1551],
    ['RETURN 1', { extra: 1 }, 1552],
    ['RETURN NO_SUCH_FN(1)', {}, 1540],
  ])('%s fails with errorNum %i', (query, bind, errorNum) => {
    let error: unknown;
    try {
      run(query, bind);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AqlError);
    expect((error as AqlError).errorNum).toBe(errorNum);
  });
});
