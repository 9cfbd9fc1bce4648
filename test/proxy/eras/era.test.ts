import { describe, expect, it } from 'vitest';
import { modernRequestOf } from '../../../src/mcp/pipeline/modern-request.js';
import { clientAccepts, eraPlan, modernParams, refusesLegacy, versionNegotiation } from '../../../src/proxy/eras/era.js';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';

describe('eraPlan: how a server is spoken to for clients of an era', () => {
  it.each([
    ['auto', 'legacy', false, 'legacy-first'],
    ['auto', 'legacy', true, 'legacy-first'],
    ['auto', 'modern', false, 'auto'],
    ['auto', 'modern', true, 'auto'],
    ['auto', undefined, false, 'auto'],
    ['auto', undefined, true, 'legacy-first'],
    ['2026-07-28', 'legacy', true, '2026-07-28'],
    ['2025-11-25', 'modern', false, '2025-11-25'],
  ] as const)('protocol %s for %s clients (stdio %s): %s', (choice, clients, stdio, plan) => {
    expect(eraPlan(choice, clients, stdio)).toBe(plan);
  });
});

describe('versionNegotiation: the SDK option for a choice', () => {
  it.each([
    ['2025-11-25', false, 30_000, { mode: 'legacy' }],
    ['2026-07-28', true, 30_000, { mode: { pin: '2026-07-28' } }],
    ['auto', true, 30_000, { mode: 'auto', probe: { timeoutMs: 5000 } }],
    ['auto', true, 2000, { mode: 'auto', probe: { timeoutMs: 2000 } }],
    ['auto', false, 30_000, { mode: 'auto', probe: { timeoutMs: 30_000 } }],
  ] as const)('%s (stdio %s, timeout %d)', (choice, stdio, timeout, expected) => {
    expect(versionNegotiation(choice, stdio, timeout)).toEqual(expected);
  });
});

describe('refusesLegacy: a server that speaks 2026-07-28 only', () => {
  it.each([
    [{ code: -32022, message: 'Unsupported protocol version: 2025-11-25' }, true],
    [{ code: 'CLIENT_HTTP_NOT_IMPLEMENTED', message: 'x', data: { code: -32022 } }, true],
    [new Error('Server returned 400: Unsupported protocol version: 2025-06-18'), true],
    [{ code: -32601, message: 'Method not found' }, false],
    [new Error('connect ECONNREFUSED'), false],
    [undefined, false],
  ])('%j -> %s', (error, expected) => {
    expect(refusesLegacy(error)).toBe(expected);
  });
});

describe('modernRequestOf: what a 2026 request passes on', () => {
  it('is undefined for a 2025 request (no envelope)', () => {
    expect(modernRequestOf(undefined, { requestState: 's' })).toBeUndefined();
  });

  it("keeps the client's capabilities, log level and trace keys, not its version or identity", () => {
    const modern = modernRequestOf(
      {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
        [CAPS]: { sampling: {} },
        'io.modelcontextprotocol/logLevel': 'info',
        traceparent: '00-abc-def-01',
      },
      { inputResponses: { a: { action: 'accept' } }, requestState: 'opaque' },
      [
        ['mcp-param-region', 'eu'],
        ['content-type', 'application/json'],
      ],
    );
    expect(modern).toEqual({
      meta: { [CAPS]: { sampling: {} }, 'io.modelcontextprotocol/logLevel': 'info', traceparent: '00-abc-def-01' },
      headers: { 'mcp-param-region': 'eu' },
      inputResponses: { a: { action: 'accept' } },
      requestState: 'opaque',
      // It came with HTTP headers: a remote client's (its roots stay with it, proxy/eras/era.ts modernParams).
      remote: true,
    });
  });

  it('a client that names no capabilities passes on none (not the SDK default of mcpkit)', () => {
    expect(modernRequestOf({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }, {})?.meta).toEqual({ [CAPS]: {} });
  });

  it('modernParams puts the client keys in _meta and the retry fields beside them', () => {
    expect(modernParams({ meta: { [CAPS]: {} }, requestState: 's', inputResponses: { k: {} } })).toEqual({
      _meta: { [CAPS]: {} },
      requestState: 's',
      inputResponses: { k: {} },
    });
    expect(modernParams({ meta: {} })).toEqual({ _meta: {} });
  });
});

describe('clientAccepts: the capability a server request needs', () => {
  it.each([
    ['sampling/createMessage', { sampling: {} }, true],
    ['sampling/createMessage', { elicitation: {} }, false],
    ['elicitation/create', { elicitation: { form: {} } }, true],
    ['roots/list', {}, false],
    ['roots/list', { roots: {} }, true],
  ] as const)('%s with %j: %s', (method, capabilities, expected) => {
    expect(clientAccepts({ meta: { [CAPS]: capabilities } }, method)).toBe(expected);
  });
});
