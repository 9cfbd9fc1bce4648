import { classifyInboundRequest } from '@modelcontextprotocol/server';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { claimsModernEnvelope } from '../../src/mcp/http/envelope-claim.js';
import { isModernPost } from '../../src/mcp/http/modern-http.js';

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const ENVELOPE = {
  [VERSION]: '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const call = (meta: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', _meta: meta },
  ...extra,
});

describe('claimsModernEnvelope: a body the SDK never classifies legacy, read without its schemas', () => {
  it.each([
    ['a 2026 tools/call', call(ENVELOPE), true],
    ['a claim alone, the rest of the envelope missing (the SDK refuses it on the modern leg)', call({ [VERSION]: '2026-07-28' }), true],
    ['a claim naming a 2025 revision (refused on the modern leg)', call({ ...ENVELOPE, [VERSION]: '2025-11-25' }), true],
    ['a claim whose value is no string', call({ ...ENVELOPE, [VERSION]: 7 }), true],
    ['a 2026 notification', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: ENVELOPE } }, true],
    ['a claim on a message of no JSON-RPC shape', { method: 'tools/call', params: { _meta: ENVELOPE } }, true],
    ['no _meta', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } }, false],
    ['_meta without the claim', call({ progressToken: 1 }), false],
    ['_meta that is an array', call([VERSION]), false],
    ['_meta that is null', call(null), false],
    ['params that are an array', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: [ENVELOPE] }, false],
    ['initialize, even with the claim (the SDK looks closer)', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: ENVELOPE } }, false],
    ['a posted answer with a result', call(ENVELOPE, { result: {} }), false],
    ['a posted answer with an error', call(ENVELOPE, { error: { code: 1, message: 'x' } }), false],
    ['a batch', [call(ENVELOPE)], false],
    ['no body', undefined, false],
    ['a string', 'tools/call', false],
  ])('%s', (_label, body, claims) => {
    expect(claimsModernEnvelope(body)).toBe(claims);
  });
});

describe('isModernPost agrees with the SDK classification on every body and header it is given', () => {
  const metas: unknown[] = [
    undefined,
    null,
    [],
    {},
    ENVELOPE,
    { [VERSION]: '2026-07-28' },
    { ...ENVELOPE, [VERSION]: '2025-11-25' },
    { ...ENVELOPE, [VERSION]: 1 },
  ];
  const bodies: unknown[] = [undefined, 'x', []];
  for (const method of ['tools/call', 'initialize', 'notifications/initialized', 'ping'])
    for (const id of [1, 'a', null, 1.5, undefined])
      for (const meta of metas)
        for (const extra of [{}, { result: {} }, { error: { code: 1, message: 'x' } }]) {
          const params = meta === undefined ? { name: 'echo' } : { name: 'echo', _meta: meta };
          const body = { jsonrpc: '2.0', method, params, ...(id !== undefined ? { id } : {}), ...extra };
          bodies.push(body, [body]);
        }
  const headerSets: Record<string, string>[] = [
    {},
    { 'mcp-protocol-version': '2025-11-25' },
    { 'mcp-protocol-version': '2026-07-28' },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'ping' },
    { 'mcp-protocol-version': 'garbage' },
  ];

  it(`${bodies.length} bodies x ${headerSets.length} header sets`, () => {
    let modern = 0;
    for (const body of bodies)
      for (const headers of headerSets) {
        const sdk = classifyInboundRequest({
          httpMethod: 'POST',
          protocolVersionHeader: headers['mcp-protocol-version'],
          mcpMethodHeader: headers['mcp-method'],
          mcpNameHeader: headers['mcp-name'],
          body,
        });
        const ours = isModernPost({ headers } as unknown as IncomingMessage, body);
        expect({ body, headers, modern: ours }).toEqual({ body, headers, modern: sdk.kind !== 'legacy' });
        if (ours) modern++;
      }
    // Both answers were given: the table holds modern and legacy bodies alike.
    expect(modern).toBeGreaterThan(100);
    expect(modern).toBeLessThan(bodies.length * headerSets.length - 100);
  });
});
