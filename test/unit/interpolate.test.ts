import { describe, expect, it } from 'vitest';
import { interpolate, interpolateString, literalText, literalValues, textAsSent, variablesIn } from '../../src/config/secrets/interpolate.js';

const env = { HOME: '/home/me', TOKEN: 's3cret', EMPTY: '' };

describe('interpolateString', () => {
  it.each([
    ['plain', 'plain', []],
    ['${HOME}/x', '/home/me/x', []],
    ['Bearer ${TOKEN}', 'Bearer s3cret', []],
    ['${MISSING:-fallback}', 'fallback', []],
    ['${TOKEN:-fallback}', 's3cret', []],
    ['${EMPTY:-fallback}', 'fallback', []],
    ['${EMPTY}', '', []],
    ['${MISSING:-}', '', []],
    ['$${HOME}', '${HOME}', []],
    ['${MISSING}', '${MISSING}', ['MISSING']],
    ['${A}-${B}', '${A}-${B}', ['A', 'B']],
    ['$HOME stays', '$HOME stays', []],
  ])('%s', (text, expected, missing) => {
    const result = interpolateString(text, env);
    expect(result.text).toBe(expected);
    expect(result.missing).toEqual(missing);
  });
});

describe('interpolate', () => {
  it('walks nested values, reports missing variables with their path, and tracks env-derived paths', () => {
    const result = interpolate({ mcp_servers: { gh: { headers: { Authorization: 'Bearer ${TOKEN}' }, args: ['${HOME}', '${NOPE}'], timeout_ms: 5 } } }, env);
    expect(result.value).toEqual({ mcp_servers: { gh: { headers: { Authorization: 'Bearer s3cret' }, args: ['/home/me', '${NOPE}'], timeout_ms: 5 } } });
    expect(result.missing).toEqual([{ path: 'mcp_servers.gh.args.1', variable: 'NOPE' }]);
    expect([...result.fromEnv].sort()).toEqual(['mcp_servers.gh.args.0', 'mcp_servers.gh.headers.Authorization']);
  });

  it('does not change its input', () => {
    const raw = { a: '${HOME}' };
    interpolate(raw, env);
    expect(raw).toEqual({ a: '${HOME}' });
  });
});

describe('a server URL keeps its host: values placed by where they stand', () => {
  const env = { TENANT: 'acme', EVIL: 'evil.example/x?', PATH_PART: 'a b/c?d#e', BASE: 'https://mcp.example.com', PORTED: 'localhost:8443' };
  it.each([
    ['a tenant in the host', 'https://${TENANT}.api.example.com/mcp', 'https://acme.api.example.com/mcp', []],
    ['a host and port', 'http://${PORTED}/mcp', 'http://localhost:8443/mcp', []],
    ['a path segment, encoded', 'https://api.example.com/${PATH_PART}/mcp', 'https://api.example.com/a%20b%2Fc%3Fd%23e/mcp', []],
    ['a query value, encoded', 'https://api.example.com/mcp?t=${PATH_PART}', 'https://api.example.com/mcp?t=a%20b%2Fc%3Fd%23e', []],
    ['a URL that starts with a variable', '${BASE}/mcp', 'https://mcp.example.com/mcp', []],
    ['a value that would change the host', 'https://${EVIL}.api.example.com/mcp', 'https://${EVIL}.api.example.com/mcp', ['EVIL']],
  ])('%s', (_what, url, want, refused) => {
    const out = interpolate({ mcp_servers: { s: { url } } }, env);
    expect((out.value as { mcp_servers: { s: { url: string } } }).mcp_servers.s.url).toBe(want);
    expect(out.refused.map((r) => r.variable)).toEqual(refused);
    if (refused.length) expect(out.refused[0]!.path).toBe('mcp_servers.s.url');
  });

  it('only a server URL: other strings take values as they are', () => {
    const out = interpolate({ mcp_servers: { s: { env: { X: '${PATH_PART}' } } } }, env);
    expect((out.value as { mcp_servers: { s: { env: { X: string } } } }).mcp_servers.s.env.X).toBe('a b/c?d#e');
  });
});

describe('literalText: a text as data, read back exactly and expanding nothing', () => {
  const env = { GH_TOKEN: 'ghp-secret', MCPKIT_TOKEN: 'serve-secret' };
  it.each([
    'http://127.0.0.1:18666/mcp/${GH_TOKEN}',
    '${MCPKIT_TOKEN}',
    '${GH_TOKEN:-fallback}',
    '$${GH_TOKEN}',
    '$$${GH_TOKEN}',
    'a $ b $$ c {x} ${',
    '${${GH_TOKEN}}',
    'plain',
    '',
  ])('%j', (text) => {
    const out = interpolateString(literalText(text), env);
    expect(out.text).toBe(text);
    expect(out.usedEnv).toBe(false);
    expect(out.names).toEqual([]);
    expect(variablesIn(literalText(text))).toEqual([]);
  });

  it('walks objects and arrays, keeping keys', () => {
    expect(literalValues({ url: 'x/${A}', headers: { 'X-${B}': '${C}' }, args: ['${D}', 1, true], n: null })).toEqual({
      url: 'x/$${A}',
      headers: { 'X-${B}': '$${C}' },
      args: ['$${D}', 1, true],
      n: null,
    });
  });

  it('textAsSent shows an escape as its text and a variable by name, never its value', () => {
    expect(textAsSent('https://h/$${GH_TOKEN}/${TENANT}?a=${B:-x}')).toBe(
      `https://h/\${GH_TOKEN}/<the value of TENANT in mcpkit's environment>?a=<the value of B in mcpkit's environment, else "x">`,
    );
  });
});
