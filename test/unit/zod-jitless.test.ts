import { readFileSync } from 'node:fs';
import * as sdk from '@modelcontextprotocol/core';
import { parse } from 'yaml';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { allTools } from '../../src/tools/index.js';

// serve's fast path turns zod's JIT off (src/cli/zod-jitless.ts): each object schema is then parsed
// by zod's interpreted path, which every async parse takes anyway, instead of a parser zod writes
// and compiles for it. What a client sees must not change: for the MCP SDK's schemas and mcpkit's
// tool inputs, both paths accept the same values, give the same output (key order too) and word the
// same issues. This process has the JIT on; `{ jitless: true }` asks zod for the other path per parse.
const lock = parse(readFileSync(new URL('../fixtures/data/everything.lock.yaml', import.meta.url), 'utf8')) as {
  servers: { everything: Record<string, { definition: Record<string, unknown> }> };
};
const definitions = Object.values(lock.servers.everything).map((pin) => pin.definition);

const values: [string, unknown][] = [
  ['nothing', undefined],
  ['null', null],
  ['a string', 'x'],
  ['a list', [1, 'a']],
  ['an empty object', {}],
  [
    'initialize',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { roots: { listChanged: true } }, clientInfo: { name: 'c', version: '1' } },
    },
  ],
  ['initialize without clientInfo', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } }],
  ['tools/list', { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'abc', _meta: { progressToken: 7 } } }],
  ['tools/call', { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi', n: 1 } } }],
  ['tools/call with a wrong name type', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 5, arguments: 'no' } }],
  ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ['a result', { jsonrpc: '2.0', id: 4, result: { tools: definitions, nextCursor: 'n' } }],
  ['an error', { jsonrpc: '2.0', id: 5, error: { code: -32602, message: 'bad', data: { x: 1 } } }],
  ['a listing', { tools: definitions }],
  ['a listing with a bad tool', { tools: [{ name: 1, inputSchema: { type: 'string' } }, ...definitions.slice(0, 2)] }],
  [
    'a call result',
    {
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', data: 'AA==', mimeType: 'image/png' },
      ],
      structuredContent: { a: 1 },
      isError: false,
    },
  ],
  ['a call result with bad content', { content: [{ type: 'text' }, { type: 'nope', text: 1 }, null] }],
  ['a resource', { uri: 'file:///a', name: 'a', mimeType: 'text/plain', annotations: { audience: ['user'], priority: 2 } }],
  ['an implementation', { name: 'n', version: '1', title: 't', icons: [{ src: 'https://x/i.png', sizes: ['16x16'] }] }],
  ['capabilities', { tools: { listChanged: true }, logging: {}, experimental: { a: {} }, tasks: { requests: {} } }],
  ['keys set to undefined', { name: undefined, version: undefined, tools: undefined, content: undefined, _meta: undefined }],
  ['a __proto__ key', JSON.parse('{"__proto__": {"x": 1}, "name": "n", "version": "1"}')],
  ['extra keys', { jsonrpc: '2.0', id: 6, method: 'ping', params: {}, extra: true, more: [1] }],
];

/** Both paths' answers for one schema and value, in a form toStrictEqual compares (key order made visible). */
function bothWays(schema: z.ZodType, value: unknown): [unknown, unknown] {
  const answer = (jitless: boolean) => {
    const result = schema.safeParse(value, jitless ? ({ jitless: true } as object) : undefined);
    return result.success ? { data: result.data, order: JSON.stringify(result.data) } : { issues: result.error.issues, message: result.error.message };
  };
  return [answer(false), answer(true)];
}

describe('zod without its JIT answers as with it', () => {
  it('runs here with the JIT on, so that the two paths differ', () => {
    expect(z.config().jitless).not.toBe(true);
  });

  const sdkSchemas = (Object.entries(sdk) as [string, unknown][]).filter(
    (entry): entry is [string, z.ZodType] => entry[0].endsWith('Schema') && entry[1] instanceof z.ZodType,
  );
  it('covers the SDK’s schemas', () => expect(sdkSchemas.length).toBeGreaterThan(100));

  it.each(sdkSchemas)('the SDK’s %s', (_name, schema) => {
    for (const [what, value] of values) {
      const [jit, interpreted] = bothWays(schema, value);
      expect(interpreted, what).toStrictEqual(jit);
    }
  });

  it.each(allTools.map((tool) => [tool.name, tool] as const))('mcpkit’s %s input', (_name, tool) => {
    const fields = Object.keys(tool.input.shape);
    const wrong = Object.fromEntries(fields.map((field, i) => [field, [7, 'x', null, [], {}, true][i % 6]]));
    const strings = Object.fromEntries(fields.map((field) => [field, 'a']));
    for (const [what, value] of [...values, ['each field wrong', wrong] as const, ['each field a string', strings] as const]) {
      const [jit, interpreted] = bothWays(tool.input, value);
      expect(interpreted, what).toStrictEqual(jit);
    }
  });
});
