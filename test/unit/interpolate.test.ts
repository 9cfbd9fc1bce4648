import { describe, expect, it } from 'vitest';
import { interpolate, interpolateString } from '../../src/config/interpolate.js';

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
