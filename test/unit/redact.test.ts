import { describe, expect, it } from 'vitest';
import { addSecrets, redact, redactDeep, REDACTED } from '../../src/core/redact.js';

// One process-wide set of secrets, as in mcpkit: a short one (docs/guide/arango.md's example password)
// and a long one.
addSecrets(['mcpkit', 'p@ss', 'regkey-0123456789abcdef', '-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\r\nAQEFAASC\nab\n-----END KEY-----']);

describe('redact', () => {
  it.each([
    // mcpkit's own words stay, even when a short secret is spelled the same.
    ['Run "mcpkit arango status" to check the connection.', 'Run "mcpkit arango status" to check the connection.'],
    ['mcpkit serve: listening on http://127.0.0.1:4311/mcp', 'mcpkit serve: listening on http://127.0.0.1:4311/mcp'],
    // ...but a short secret is masked where it stands as a secret.
    ['cannot reach http://root:mcpkit@127.0.0.1:8529', 'cannot reach http://root:****@127.0.0.1:8529'],
    ['cannot reach http://root:p%40ss@db:8529/_api', 'cannot reach http://root:****@db:8529/_api'],
    ['Authorization: Bearer mcpkit', 'Authorization: Bearer ****'],
    ['GET /reg?api_key=mcpkit&limit=3', 'GET /reg?api_key=****&limit=3'],
    ['ARANGO_PASSWORD=mcpkit node x.js', 'ARANGO_PASSWORD=**** node x.js'],
    ['{"password":"mcpkit","user":"root"}', '{"password":"****","user":"root"}'],
    ['password: mcpkit', 'password: ****'],
    // A secret-looking key with another value is left as it is.
    ['password=mcpkit2', 'password=mcpkit2'],
    // A long secret is masked wherever it occurs.
    ['upstream said: bad key regkey-0123456789abcdef.', 'upstream said: bad key ****.'],
    ['xregkey-0123456789abcdefx', 'x****x'],
    // Each line of a multi-line secret, as a server's stderr prints it a line at a time; a
    // line too short to be told from ordinary text ("ab") is not one.
    ['[srv] MIIEvQIBADANBgkqhkiG9w0B', '[srv] ****'],
    ['AQEFAASC ab', '**** ab'],
  ])('%s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('masks inside JSON-like values, leaving the rest as it is', () => {
    expect(redactDeep({ hint: 'Run "mcpkit config show".', url: 'http://u:mcpkit@h', n: 1 })).toEqual({
      hint: 'Run "mcpkit config show".',
      url: 'http://u:****@h',
      n: 1,
    });
  });
});

describe('secrets in their encoded spellings', () => {
  const SECRET = 'Encoded s3cret/Value+42!';
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  addSecrets([SECRET]);

  it.each([
    ['HTTP Basic of user:secret', `Authorization: Basic ${b64(`alice:${SECRET}`)}`],
    ['HTTP Basic of a longer user name', `Authorization: Basic ${b64(`bob-the-builder:${SECRET}`)}`],
    ['HTTP Basic of a user name two bytes longer', `Authorization: Basic ${b64(`bob1:${SECRET}`)}`],
    ['Base64 of the secret alone', `token=${b64(SECRET)}`],
    ['URL-safe Base64', `x=${Buffer.from(SECRET).toString('base64url')}`],
    ['URL-encoded', `https://h/x?key=${encodeURIComponent(SECRET)}`],
    ['form-encoded, + for spaces', `key=${encodeURIComponent(SECRET).replace(/%20/g, '+')}`],
    ['lower-case percent-encoding', `key=${encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())}`],
  ])('%s', (_what, line) => {
    const shown = redact(line);
    expect(shown).toContain(REDACTED);
    // Nothing left that decodes back to the secret.
    const decoded = [...shown.matchAll(/[A-Za-z0-9+/_-]{8,}={0,2}/g)].map((m) => Buffer.from(m[0], 'base64').toString('latin1'));
    for (const text of [shown, decodeURIComponent(shown.replace(/\+/g, ' ')), ...decoded]) expect(text).not.toContain(SECRET);
  });
});
