import { describe, expect, it } from 'vitest';
import { externalizeSecrets, looksLikeToken } from '../../src/config/imports/import-secrets.js';

describe('looksLikeToken', () => {
  it.each([
    ['ghp_0123456789abcdefghijABCDEFGHIJ012345', true],
    ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', true],
    ['sk-proj-abcdefghijklmnop1234', true],
    ['xoxb-1234567890-abcdefghij', true],
    ['AKIAIOSFODNN7EXAMPLE', true],
    ['Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==', true],
    ['/home/me/projects/site', false],
    ['/tmp/mcpkit-suite-d78qoC/mcpkit-test-UAIJfv', false], // random letters and digits, but a path
    ['./data/run2024abcdefghijklmnop', false],
    ['~/notes/2024q3abcdefghijklmnopq', false],
    ['a/b+c/d0123456789abcdefghijklmnop', true], // base64 with slashes, not a path
    ['production', false],
    ['@modelcontextprotocol/server-github', false],
    ['--verbose', false],
    ['https://example.com/mcp', false],
    ['some_long_identifier_without_digits', false],
    ['1234567890123456789012345', false], // digits alone: a number, an id
  ])('%s -> %s', (value, expected) => {
    expect(looksLikeToken(value)).toBe(expected);
  });
});

describe('externalizeSecrets', () => {
  it.each([
    [
      'a secret-looking env key keeps its own name',
      'github',
      { command: 'npx', env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'abc', DEBUG: '1' } },
      { command: 'npx', env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_PERSONAL_ACCESS_TOKEN}', DEBUG: '1' } },
      [['GITHUB_PERSONAL_ACCESS_TOKEN', 'mcp_servers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN', 'abc']],
    ],
    [
      'a token value under a plain key',
      'svc',
      { command: 'x', env: { LOGIN: 'ghp_0123456789abcdefghijABCDEFGHIJ012345' } },
      { command: 'x', env: { LOGIN: '${LOGIN}' } },
      [['LOGIN', 'mcp_servers.svc.env.LOGIN', 'ghp_0123456789abcdefghijABCDEFGHIJ012345']],
    ],
    [
      'a bearer header keeps its scheme',
      'linear-app',
      { url: 'https://x/mcp', headers: { Authorization: 'Bearer t0k3n' } },
      { url: 'https://x/mcp', headers: { Authorization: 'Bearer ${LINEAR_APP_TOKEN}' } },
      [['LINEAR_APP_TOKEN', 'mcp_servers.linear-app.headers.Authorization', 't0k3n']],
    ],
    [
      'an API key argument',
      'brave',
      { command: 'x', args: ['--api-key=abc123', '--port', '80'] },
      { command: 'x', args: ['--api-key=${BRAVE_TOKEN}', '--port', '80'] },
      [['BRAVE_TOKEN', 'mcp_servers.brave.args.0', 'abc123']],
    ],
    [
      'references and plain values stay',
      'ok',
      { command: 'x', env: { TOKEN: '${MY_TOKEN}', PATHS: '/a:/b', EMPTY_SECRET: '' }, headers: { 'X-Trace': 'on' } },
      { command: 'x', env: { TOKEN: '${MY_TOKEN}', PATHS: '/a:/b', EMPTY_SECRET: '' }, headers: { 'X-Trace': 'on' } },
      [],
    ],
  ])('%s', (_why, server, entry, expected, moved) => {
    const out = externalizeSecrets(server, entry);
    expect(out.entry).toEqual(expected);
    expect(out.moved.map((m) => [m.variable, m.path, m.value])).toEqual(moved);
  });

  it('reuses a variable for the same value across servers and numbers it for another', () => {
    const taken = new Map<string, string>();
    expect(externalizeSecrets('a', { env: { API_KEY: 'one' } }, taken).entry).toEqual({ env: { API_KEY: '${API_KEY}' } });
    expect(externalizeSecrets('b', { env: { API_KEY: 'one' } }, taken).entry).toEqual({ env: { API_KEY: '${API_KEY}' } });
    expect(externalizeSecrets('c', { env: { API_KEY: 'two' } }, taken).entry).toEqual({ env: { API_KEY: '${API_KEY_2}' } });
  });
});
