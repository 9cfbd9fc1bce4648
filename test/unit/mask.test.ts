import { describe, expect, it } from 'vitest';
import { MASK, maskSecrets } from '../../src/config/secrets/mask.js';

describe('maskSecrets', () => {
  it.each([
    ['a value from the environment', { a: { url: 'https://x' } }, new Set(['a.url']), { a: { url: MASK } }],
    ['a literal under a secret key', { headers: { Authorization: 'Bearer abc' } }, new Set<string>(), { headers: { Authorization: MASK } }],
    ['env entries named like secrets', { env: { GITHUB_TOKEN: 'ghp_x', DEBUG: '1' } }, new Set<string>(), { env: { GITHUB_TOKEN: MASK, DEBUG: '1' } }],
    ['a placeholder reveals nothing', { api_key: '${PULSE_KEY}' }, new Set<string>(), { api_key: '${PULSE_KEY}' }],
    ['nor does a prefix before one', { Authorization: 'Bearer ${TOKEN}' }, new Set<string>(), { Authorization: 'Bearer ${TOKEN}' }],
    ['everything under a secret key', { credentials: { user: 'u', pass: 'p' } }, new Set<string>(), { credentials: { user: MASK, pass: MASK } }],
    ["a URL's password", { arango: { url: 'http://root:mcpkit@db:8529' } }, new Set<string>(), { arango: { url: `http://root:${MASK}@db:8529` } }],
    ["a URL's password that is a placeholder", { url: 'http://root:${PASS}@db' }, new Set<string>(), { url: 'http://root:${PASS}@db' }],
    ['a URL with a user only', { url: 'http://root@db' }, new Set<string>(), { url: 'http://root@db' }],
    ['ordinary values stay', { command: 'npx', args: ['-y', 'pkg'], timeout_ms: 5 }, new Set<string>(), { command: 'npx', args: ['-y', 'pkg'], timeout_ms: 5 }],
  ])('%s', (_name, input, fromEnv, expected) => {
    expect(maskSecrets(input, fromEnv)).toEqual(expected);
  });
});
