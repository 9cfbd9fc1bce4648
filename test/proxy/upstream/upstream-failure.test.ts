import { describe, expect, it } from 'vitest';
import { upstreamAuthFailure } from '../../../src/auth/upstream-errors.js';
import type { UpstreamOAuth } from '../../../src/auth/upstream-oauth.js';
import { ToolError } from '../../../src/core/errors.js';
import { REQUEST_TIMEOUT } from '../../../src/proxy/upstream/progress-timeout.js';
import { connectTimeoutError, requestFailure, unavailableError } from '../../../src/proxy/upstream/upstream-failure.js';

describe('requestFailure: what a failed request to a connected server becomes', () => {
  it.each([
    ['a JSON-RPC timeout', { code: REQUEST_TIMEOUT, message: 'Request timed out' }, 'TIMEOUT', 'did not answer echo within 500 ms'],
    ['a message that says it timed out', { message: 'Request timed out after 500 ms' }, 'TIMEOUT', 'Raise'],
    [
      "the server's error, without the SDK's prefixes",
      { code: -32603, message: 'MCP error -32603: MCP error -32603: boom' },
      'UPSTREAM_ERROR',
      'failed echo: boom',
    ],
  ])('%s', (_label, error, code, words) => {
    const failure = requestFailure('s', 'echo', error, 500);
    expect(failure.code).toBe(code);
    expect(`${failure.message} ${failure.hint ?? ''}`).toContain(words);
  });

  it('keeps the upstream code in the details', () => {
    expect(requestFailure('s', 'echo', { code: -32000, message: 'x' }, 1).details).toMatchObject({ server: 's', tool: 'echo', upstream_code: -32000 });
  });
});

describe('connectTimeoutError', () => {
  it('is TIMEOUT, names the transport and the limit, and for a one-off connection says what to check', () => {
    const e = connectTimeoutError({ name: 's', state: 'down', stderrTail: ['starting'], reconnects: false, reached: 'node server.js' }, 'stdio', 3000);
    expect(e.code).toBe('TIMEOUT');
    expect(e.message).toBe('Server "s" did not answer the MCP handshake over stdio within 3000 ms.');
    expect(e.hint).toBe('Raise mcp_servers.s.timeout_ms if it starts slowly. Check that it works on its own: node server.js');
    expect(e.details).toMatchObject({ stderr: ['starting'] });
  });
});

describe('unavailableError', () => {
  it.each([
    ['closed', undefined, true, 'mcpkit is shutting down.'],
    ['down', ['command is missing'], true, 'Fix mcp_servers.s in the config'],
    ['down', undefined, true, 'mcpkit reconnects with backoff; check the server on its own with: mcpkit server test s'],
    ['down', undefined, false, 'Check that it works on its own: node server.js'],
  ] as const)('state %s, problems %j, reconnects %s: the hint says what to do', (state, problems, reconnects, hint) => {
    const e = unavailableError({
      name: 's',
      state,
      lastError: 'it exited',
      stderrTail: ['', 'line 1', 'line 2'],
      reconnects,
      reached: 'node server.js',
      ...(problems ? { problems } : {}),
    });
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).toContain('Server "s" is unavailable: it exited.');
    expect(e.message).toContain('  line 2');
    expect(e.details).toMatchObject({ stderr: ['line 1', 'line 2'] });
    expect(e.hint).toContain(hint);
  });
});

function oauthHeard(challenge: { status: number; error?: string; scope?: string } | undefined): UpstreamOAuth {
  return { fetch: globalThis.fetch, lastChallenge: () => challenge };
}

describe('upstreamAuthFailure', () => {
  const remote = { name: 'r', config: { url: 'https://example.test/mcp' } };
  it.each([
    ['a 401 without auth: it wants credentials', remote, { code: 401 }, 'AUTH_REQUIRED', '--auth oauth'],
    [
      'a 401 with an Authorization header: it refused it',
      { ...remote, config: { ...remote.config, headers: { authorization: 'Bearer x' } } },
      { code: 401 },
      'AUTH_FAILED',
      'headers',
    ],
    ['a 403 without auth is not about credentials', remote, { code: 403 }, undefined, ''],
    [
      'an oauth server refusing the login',
      { ...remote, oauth: oauthHeard({ status: 401 }) },
      { code: 401, message: 'nope' },
      'AUTH_REQUIRED',
      'refused the stored login (nope)',
    ],
    [
      'a step-up',
      { ...remote, oauth: oauthHeard({ status: 403, error: 'insufficient_scope', scope: 'write' }) },
      { code: 403 },
      'AUTH_REQUIRED',
      'scope "write"',
    ],
    ['any other error of an oauth server', { ...remote, oauth: oauthHeard(undefined) }, { code: 500 }, undefined, ''],
    ['an AUTH_REQUIRED thrown by the provider passes through', remote, new ToolError('AUTH_REQUIRED', 'log in'), 'AUTH_REQUIRED', 'log in'],
    ['another ToolError is not about credentials', remote, new ToolError('TIMEOUT', 'slow'), undefined, ''],
  ])('%s', (_label, subject, error, code, words) => {
    const failure = upstreamAuthFailure(error, subject);
    expect(failure?.code).toBe(code);
    if (failure) expect(`${failure.message} ${failure.hint ?? ''}`).toContain(words);
  });
});
