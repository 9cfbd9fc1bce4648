import { describe, expect, it } from 'vitest';
import { jsonLongerThan, truncateResponse } from '../../src/registry/truncate.js';

const s = (n: number, c = 'a') => c.repeat(n);
const cut = (path: string, n = 200, c = 'a') => `${s(n, c)}... [TRUNCATED - use expand_fields: ["${path}"] to see full content]`;
const deep = (path: string) => `[DEEP OBJECT TRUNCATED - use expand_fields: ["${path}"] to see full content]`;
/** An object whose JSON is exactly `n` characters, made of strings short enough to be kept. */
const sized = (n: number) => {
  const out: Record<string, string> = {};
  for (let i = 0; JSON.stringify(out).length < n; i++) {
    out[`k${i}`] = '';
    const missing = n - JSON.stringify(out).length;
    out[`k${i}`] = s(Math.max(0, Math.min(100, missing)));
  }
  if (JSON.stringify(out).length !== n) throw new Error(`cannot size ${n}`);
  return out;
};

describe('truncateResponse', () => {
  it.each([
    ['a 200-character string is kept', { d: s(200) }, [], { d: s(200) }],
    ['a 201-character string is cut at 200', { d: s(201) }, [], { d: cut('d') }],
    [
      'paths write indices as []',
      { servers: [{ server: { description: s(300) } }] },
      [],
      { servers: [{ server: { description: cut('servers[].server.description') } }] },
    ],
    ['an exact expand entry keeps the string', { server: { readme: s(300) } }, ['server.readme'], { server: { readme: s(300) } }],
    ['[] in an expand entry matches every index', { servers: [{ d: s(300) }, { d: s(300) }] }, ['servers[].d'], { servers: [{ d: s(300) }, { d: s(300) }] }],
    [
      'a concrete index matches only that element',
      { servers: [{ d: s(300) }, { d: s(300) }] },
      ['servers[1].d'],
      { servers: [{ d: cut('servers[].d') }, { d: s(300) }] },
    ],
    ['an expand entry is a prefix of deeper paths', { server: { a: s(300), b: { c: s(300) } } }, ['server'], { server: { a: s(300), b: { c: s(300) } } }],
    [
      'a prefix must end at a segment',
      { server: { readme: s(300), readmeX: s(300) } },
      ['server.readme'],
      { server: { readme: s(300), readmeX: cut('server.readmeX') } },
    ],
    // depth: a=1, a.b=2, a.b.c=3, a.b.c.d=4, a.b.c.d.e=5
    ['an object at depth 4 is never collapsed', { a: { b: { c: { d: sized(600) } } } }, [], { a: { b: { c: { d: sized(600) } } } }],
    ['an object at depth 5 of 500 characters is kept', { a: { b: { c: { d: { e: sized(500) } } } } }, [], { a: { b: { c: { d: { e: sized(500) } } } } }],
    [
      'an object at depth 5 of 501 characters is collapsed',
      { a: { b: { c: { d: { e: sized(501) } } } } },
      [],
      { a: { b: { c: { d: { e: deep('a.b.c.d.e') } } } } },
    ],
    [
      'array indices count as depth',
      { servers: [{ server: { meta: { tools: [sized(600)] } } }] },
      [],
      { servers: [{ server: { meta: { tools: deep('servers[].server.meta.tools') } } }] },
    ],
    ['an expanded deep object is kept whole', { a: { b: { c: { d: { e: sized(600) } } } } }, ['a.b.c.d.e'], { a: { b: { c: { d: { e: sized(600) } } } } }],
    [
      'a deep object on the way to an expanded path is opened',
      { a: { b: { c: { d: { e: { f: sized(600), g: sized(600) } } } } } },
      ['a.b.c.d.e.f'],
      { a: { b: { c: { d: { e: { f: sized(600), g: deep('a.b.c.d.e.g') } } } } } },
    ],
    [
      'long strings inside a kept deep object are still cut',
      { a: { b: { c: { d: { e: { t: s(250) } } } } } },
      [],
      { a: { b: { c: { d: { e: { t: cut('a.b.c.d.e.t') } } } } } },
    ],
    [
      'keys with dots and slashes are written as they are',
      { _meta: { 'com.pulsemcp/server': { x: s(201) } } },
      [],
      { _meta: { 'com.pulsemcp/server': { x: cut('_meta.com.pulsemcp/server.x') } } },
    ],
    ['numbers, booleans and null pass', { n: 1, b: true, z: null }, [], { n: 1, b: true, z: null }],
  ])('%s', (_label, input, expand, expected) => {
    const before = JSON.stringify(input);
    expect(truncateResponse(input, expand)).toEqual(expected);
    expect(JSON.stringify(input)).toBe(before); // never mutated
  });

  it('keeps a top-level string short too', () => {
    expect(truncateResponse(s(201))).toBe(cut(''));
  });
});

describe('jsonLongerThan matches JSON.stringify exactly', () => {
  const samples: unknown[] = [
    sized(500),
    { a: [1, 'x"y', null, true, { b: undefined, c: 'é\n' }], d: -1.5e-7 },
    [undefined, 'z'],
    { nested: [[[]], {}], u: '\u2028' },
    'plain',
  ];
  it.each(samples.map((v) => [JSON.stringify(v).length, v]))('length %i', (length, value) => {
    expect(jsonLongerThan(value, length)).toBe(false);
    expect(jsonLongerThan(value, length - 1)).toBe(true);
  });
});

describe('truncateResponse on hostile input', () => {
  it('shortens a value nested 20,000 levels deep without overflowing the stack', () => {
    let deep: unknown = { leaf: 'x' };
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const out = truncateResponse({ servers: [{ server: { name: 'deep', x: deep } }] }) as { servers: { server: { x: unknown } }[] };
    expect(JSON.stringify(out)).toContain('DEEP OBJECT TRUNCATED');
  });
});
