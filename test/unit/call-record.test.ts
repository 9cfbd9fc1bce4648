import { describe, expect, it } from 'vitest';
import { auditedCall, type CallFacts } from '../../src/mcp/pipeline/call-record.js';
import type { CatalogEntry } from '../../src/proxy/catalog/catalog.js';

const echo: CatalogEntry = {
  kind: 'upstream',
  name: 'everything__echo',
  server: 'everything',
  upstreamName: 'echo',
  tool: { name: 'echo', inputSchema: { type: 'object' } },
};
const base: CallFacts = {
  method: 'tools/call',
  name: 'everything__echo',
  session: 's1',
  request: 7,
  access: { client: 'ci', named: true },
  client: { name: 'inspector', version: '1' },
  view: 'work',
  answered: { entry: echo },
  started: 10,
  args: { message: 'hi' },
  ended: { result: { content: [] } },
};

describe('auditedCall (the one maker of audit records, for both downstream paths)', () => {
  it.each<[string, Partial<CallFacts>, Record<string, unknown>]>([
    [
      'an upstream tool, by a named client',
      {},
      { name: 'everything__echo', identity: 'ci', named: true, server: 'everything', upstreamName: 'echo', result: { content: [] } },
    ],
    ['stdio: nobody let in by name', { access: undefined }, { identity: 'stdio', named: undefined }],
    [
      'through a meta-tool: recorded under the tool it ran',
      { name: 'call_tool', answered: { entry: echo, via: 'call_tool' } },
      { name: 'everything__echo', via: 'call_tool', server: 'everything' },
    ],
    ['a listing meta-tool: mcpkit answered', { name: 'search_tools', answered: { meta: true } }, { server: 'mcpkit', upstreamName: 'search_tools' }],
    ['nothing known answered', { name: 'nope', answered: undefined }, { name: 'nope', server: undefined, upstreamName: undefined }],
    ['refused by its limits or rules: under the tool it named', { answered: { entry: echo, refused: true } }, { server: 'everything', refused: true }],
    [
      'a tool its pins withhold: the server it is of',
      { name: 'notes__send', answered: { held: { server: 'notes', tool: 'send' } } },
      { name: 'notes__send', server: 'notes', upstreamName: 'send', refused: undefined },
    ],
    ['an error', { ended: { error: { code: -32602 } } }, { error: { code: -32602 }, result: undefined }],
    ['the bytes sent, when the path counted them', { ended: { result: {}, resultBytes: 42 } }, { resultBytes: 42 }],
  ])('%s', (_, facts, expected) => {
    const record = auditedCall({ ...base, ...facts });
    for (const [key, value] of Object.entries(expected)) expect(record[key as keyof typeof record], key).toEqual(value);
    expect(record).toMatchObject({ method: 'tools/call', session: 's1', request: 7, view: 'work', started: 10 });
  });

  it('records no bytes it was not given, and no via for a direct call', () => {
    const record = auditedCall(base);
    expect('resultBytes' in record).toBe(false);
    expect('via' in record).toBe(false);
  });
});
