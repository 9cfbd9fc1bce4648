import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parsedPinText, yamlValue } from '../../src/config/files/parsed-pin-text.js';

// yamlValue stands in for parse(stringify(body)) after serve writes its own pins: it must give
// what the parse would, value for value, for everything a lock file can hold.
const shared = { type: 'object', properties: { a: { type: 'string' } } };
const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { k: 'v' });
const tricky: [string, unknown][] = [
  ['undefined properties are left out', { title: undefined, name: 't' }],
  ['undefined in a list is null', [1, undefined, 'x']],
  ['-0, NaN, the infinities, big and small numbers', [-0, 0, NaN, Infinity, -Infinity, 1e21, 2 ** 53 + 2, 1.5e-300, 0.1]],
  ['strings YAML would read as something else', ['yes', 'no', '~', 'null', 'true', '0x10', '1_000', '.inf', 'NaN', '2001-12-14', '012', '+1']],
  [
    'strings with YAML syntax',
    ['', ' lead', 'trail ', '#x', 'x #y', '- x', '? x', ': x', 'a: b', '{a}', '[a]', '|', '>', '!tag', '&a', '*a', '@x', '`x', '%x', '"q', "'q"],
  ],
  ['line breaks and other characters', ['a\nb', 'a\r\nb', '\t', '\u0085', '\u2028', '\u00a0', '\ufeffbom', '\x00', '\x7f', 'é😀', 'x'.repeat(500)]],
  ['keys that are not plain words', { __proto__: null, '<<': { a: 1 }, '1': 2, '': 3, 'a: b': 4, '? x': 5, '-': 6, null: 7, yes: 8 }],
  ['a key named __proto__ is an own property', JSON.parse('{"__proto__": {"polluted": true}, "b": 1}')],
  ['an object met twice is one object twice (an alias)', { x: shared, y: shared, z: [shared, shared] }],
  ['an object without a prototype', { o: nullProto }],
  ['empty objects and lists', { o: {}, l: [], n: [[], [{}]] }],
  ['booleans and null', { t: true, f: false, n: null }],
];

/** The objects of a value in the order met, each once: two values alias alike when these line up. */
function objectsOf(value: unknown, seen: object[] = []): object[] {
  if (value === null || typeof value !== 'object') return seen;
  seen.push(value);
  if (seen.indexOf(value) !== seen.length - 1) return seen;
  for (const item of Object.values(value)) objectsOf(item, seen);
  return seen;
}
const aliasing = (value: unknown) => {
  const all = objectsOf(value);
  return all.map((o) => all.indexOf(o));
};

describe('yamlValue: what parse(stringify(body)) gives', () => {
  it.each(tricky)('%s', (_what, value) => {
    const body = { version: 1, servers: { s: { t: { sha256: 'x', definition: { name: 't', value } } } } };
    const parsed: unknown = parse(stringify(body, { lineWidth: 0 }));
    const copy = yamlValue(body, new Map());
    // Strict: -0 is not 0, and prototypes count.
    expect(isDeepStrictEqual(copy, parsed)).toBe(true);
    expect(aliasing(copy)).toEqual(aliasing(parsed));
    // A copy: the body changed later does not change it.
    expect(copy).not.toBe(body);
  });

  it.each([
    ['a class instance', new Date(0)],
    ['a Map', new Map()],
    ['a function', () => 1],
    ['a bigint', 1n],
    ['a symbol', Symbol('s')],
    ['an object with a symbol key', { [Symbol('s')]: 1 }],
  ])('%s is not plain data: its YAML is not guessed', (_what, value) => {
    expect(typeof yamlValue({ a: [{ b: value }] }, new Map())).toBe('symbol');
  });
});

describe('parsedPinText', () => {
  it('gives each caller a copy of its own: a change to one is not in the next', () => {
    const text = 'version: 1\nservers:\n  s:\n    t: { sha256: x, definition: { name: t } }\n';
    const first = parsedPinText(text) as { servers: Record<string, unknown> };
    first.servers.added = {};
    delete first.servers.s;
    expect(parsedPinText(text)).toEqual(parse(text));
  });

  it('throws as parse does on a text that is not YAML, every time', () => {
    expect(() => parsedPinText('a: [')).toThrow();
    expect(() => parsedPinText('a: [')).toThrow();
  });
});
