import { describe, expect, it } from 'vitest';
import {
  decodeParamValue,
  encodeParamValue,
  paramHeaderDeclarations,
  paramHeaderMismatch,
  paramHeadersFor,
  type ParamHeaderDeclaration,
} from '../../src/proxy/eras/param-headers.js';

const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

describe('paramHeaderDeclarations', () => {
  it.each<[string, unknown, ParamHeaderDeclaration[] | undefined]>([
    ['no annotation', { type: 'object', properties: { a: { type: 'string' } } }, []],
    ['not a schema', null, []],
    [
      'top-level and nested properties, in order',
      {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          options: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' }, n: { type: 'integer', 'x-mcp-header': 'N' } } },
        },
      },
      [
        { path: ['region'], headerName: 'Region', type: 'string' },
        { path: ['options', 'dry'], headerName: 'Dry-Run', type: 'boolean' },
        { path: ['options', 'n'], headerName: 'N', type: 'integer' },
      ],
    ],
    [
      'a number-typed parameter is still checked',
      { properties: { x: { type: 'number', 'x-mcp-header': 'X' } } },
      [{ path: ['x'], headerName: 'X', type: 'number' }],
    ],
    ['on the root schema: invalid', { type: 'string', 'x-mcp-header': 'Root' }, undefined],
    ['not a token (a space): invalid', { properties: { a: { type: 'string', 'x-mcp-header': 'Two Words' } } }, undefined],
    ['empty: invalid', { properties: { a: { type: 'string', 'x-mcp-header': '' } } }, undefined],
    ['not a string: invalid', { properties: { a: { type: 'string', 'x-mcp-header': 7 } } }, undefined],
    ['on an object: invalid', { properties: { a: { type: 'object', 'x-mcp-header': 'A' } } }, undefined],
    ['without a type: invalid', { properties: { a: { 'x-mcp-header': 'A' } } }, undefined],
    [
      'the same name twice, in other cases: invalid',
      { properties: { a: { type: 'string', 'x-mcp-header': 'Name' }, b: { type: 'string', 'x-mcp-header': 'NAME' } } },
      undefined,
    ],
    ['under items: invalid', { properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } } }, undefined],
    ['under anyOf: invalid', { properties: { a: { anyOf: [{ type: 'string', 'x-mcp-header': 'A' }] } } }, undefined],
    ['under $defs: invalid', { properties: {}, $defs: { thing: { type: 'string', 'x-mcp-header': 'T' } } }, undefined],
    ['under additionalProperties: invalid', { additionalProperties: { type: 'string', 'x-mcp-header': 'Extra' } }, undefined],
    ['under patternProperties: invalid', { patternProperties: { '^x': { type: 'string', 'x-mcp-header': 'P' } } }, undefined],
  ])('%s', (_name, schema, expected) => {
    expect(paramHeaderDeclarations(schema)).toEqual(expected);
  });
});

describe('decodeParamValue', () => {
  it.each<[string, string, string | undefined]>([
    ['plain text, as it is', 'us-west1', 'us-west1'],
    ['the sentinel, decoded as UTF-8', b64('Hello'), 'Hello'],
    ['non-ASCII text', b64('Grüße, 世界'), 'Grüße, 世界'],
    ['bad padding', '=?base64?SGVsbG8?=', undefined],
    ['characters outside the alphabet', '=?base64?SGVs!!!bG8=?=', undefined],
    ['bytes that are not UTF-8', `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`, undefined],
    ['no prefix: literal', 'SGVsbG8=', 'SGVsbG8='],
    ['no suffix: literal', '=?base64?SGVsbG8=', '=?base64?SGVsbG8='],
    ['an empty payload', '=?base64??=', ''],
  ])('%s', (_name, value, expected) => {
    expect(decodeParamValue(value)).toBe(expected);
  });
});

describe('paramHeaderMismatch', () => {
  const declarations: ParamHeaderDeclaration[] = [
    { path: ['region'], headerName: 'Region', type: 'string' },
    { path: ['opts', 'dry'], headerName: 'Dry-Run', type: 'boolean' },
    { path: ['count'], headerName: 'Count', type: 'integer' },
    { path: ['ratio'], headerName: 'Ratio', type: 'number' },
  ];
  const headers = (sent: Record<string, string>) => (name: string) => Object.fromEntries(Object.entries(sent).map(([k, v]) => [k.toLowerCase(), v]))[name];

  it.each<[string, Record<string, unknown>, Record<string, string>, string | undefined]>([
    [
      'every header agrees',
      { region: 'eu', opts: { dry: true }, count: 3, ratio: 0.5 },
      { 'Mcp-Param-Region': 'eu', 'Mcp-Param-Dry-Run': 'true', 'Mcp-Param-Count': '3', 'Mcp-Param-Ratio': '0.5' },
      undefined,
    ],
    ['header names in any case', { region: 'eu' }, { 'MCP-PARAM-REGION': 'eu' }, undefined],
    ['an absent argument needs no header', {}, {}, undefined],
    ['a null argument needs no header, and one sent is ignored', { region: null }, { 'Mcp-Param-Region': 'elsewhere' }, undefined],
    ['Base64 that decodes to the argument', { region: 'Grüße' }, { 'Mcp-Param-Region': b64('Grüße') }, undefined],
    ['numbers compare as numbers (42.0 is 42)', { count: 42 }, { 'Mcp-Param-Count': '42.0' }, undefined],
    ['an object where a string was declared has no header', { region: { not: 'primitive' } }, {}, undefined],
    ['an unsafe integer has no header', { count: 2 ** 60 }, {}, undefined],
    ['a missing header', { region: 'eu' }, {}, 'Mcp-Param-Region'],
    ['a missing nested header', { opts: { dry: false } }, {}, 'Mcp-Param-Dry-Run'],
    ['another value', { region: 'eu' }, { 'Mcp-Param-Region': 'us' }, 'Mcp-Param-Region'],
    ['values are case-sensitive', { region: 'eu' }, { 'Mcp-Param-Region': 'EU' }, 'Mcp-Param-Region'],
    ['a boolean written otherwise', { opts: { dry: true } }, { 'Mcp-Param-Dry-Run': 'True' }, 'Mcp-Param-Dry-Run'],
    ['another number', { count: 3 }, { 'Mcp-Param-Count': '4' }, 'Mcp-Param-Count'],
    ['bad Base64', { region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8?=' }, 'Mcp-Param-Region'],
    ['the first of two disagreeing headers is named', { region: 'eu', count: 1 }, { 'Mcp-Param-Region': 'us', 'Mcp-Param-Count': '2' }, 'Mcp-Param-Region'],
  ])('%s', (_name, args, sent, refused) => {
    const mismatch = paramHeaderMismatch(declarations, args, headers(sent));
    expect(mismatch?.header).toBe(refused);
    if (mismatch) {
      expect(mismatch.message).toBe(`Bad Request: the request headers and body disagree: ${mismatch.body}`);
      expect(mismatch.body).toContain(refused);
    }
  });
});

describe('encodeParamValue', () => {
  it.each<[string, string, 'plain' | 'base64']>([
    ['plain ASCII', 'us-west1', 'plain'],
    ['a tab and spaces inside', 'a\tb c', 'plain'],
    ['empty', '', 'base64'],
    ['non-ASCII', 'Zürich', 'base64'],
    ['a space at the start', ' x', 'base64'],
    ['a space at the end', 'x ', 'base64'],
    ['a newline', 'a\nb', 'base64'],
    ['DEL', 'a\x7f', 'base64'],
    ['a text that looks like the sentinel', '=?base64?SGVsbG8=?=', 'base64'],
    ['an emoji', '😀', 'base64'],
  ])('%s', (_name, text, kind) => {
    const encoded = encodeParamValue(text);
    expect(encoded === text ? 'plain' : 'base64').toBe(kind);
    expect(decodeParamValue(encoded)).toBe(text); // what a server reads back
  });
});

describe('paramHeadersFor', () => {
  const declarations = paramHeaderDeclarations({
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      opts: { properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } },
      count: { type: 'integer', 'x-mcp-header': 'Count' },
    },
  })!;

  it.each<[string, Record<string, unknown>, Record<string, string>]>([
    ['every parameter', { region: 'eu', opts: { dry: false }, count: 7 }, { 'Mcp-Param-Region': 'eu', 'Mcp-Param-Dry-Run': 'false', 'Mcp-Param-Count': '7' }],
    ['absent and null arguments get no header', { region: null }, {}],
    ['non-ASCII goes as Base64', { region: 'Grüße' }, { 'Mcp-Param-Region': `=?base64?${Buffer.from('Grüße').toString('base64')}?=` }],
    ['a value of another kind gets no header', { region: { nested: true }, count: Number.POSITIVE_INFINITY }, {}],
  ])('%s', (_name, args, expected) => {
    const headers = paramHeadersFor(declarations, args);
    expect(headers).toEqual(expected);
    // What is made is what a server accepts.
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(paramHeaderMismatch(declarations, args, (name) => lower[name])).toBeUndefined();
  });
});
