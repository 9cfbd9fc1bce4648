import { describe, expect, it } from 'vitest';
import { isOAuthPath, oauthNotFound } from '../../src/mcp/access/oauth-paths.js';

describe('isOAuthPath', () => {
  it.each<[string, boolean]>([
    ['/register', true],
    ['/token', true],
    ['/authorize', true],
    ['/revoke', true],
    ['/introspect', true],
    ['/register/anything', true],
    ['/.well-known/oauth-authorization-server', true],
    ['/.well-known/openid-configuration/mcp', true],
    ['/registers', false],
    ['/tokens', false],
    ['/mcp', false],
    ['/health', false],
    ['/views/register', false],
    ['/view/token/mcp', false],
  ])('%s: %s', (path, oauth) => expect(isOAuthPath(path)).toBe(oauth));
});

describe('oauthNotFound', () => {
  // What clients read as "log in again" (mcporter then waits for a browser): never in these words.
  const LOGIN_WORDS = /401|unauthorized|invalid_token|forbidden/i;
  it.each<[string, string | undefined, RegExp]>([
    ['/register', undefined, /^Nothing at \/register: this server is not an authorization server.*serve\.token, serve\.clients.*not recognised/],
    ['/.well-known/oauth-authorization-server', undefined, /^No metadata at \/\.well-known\/oauth-authorization-server: /],
    [
      '/token',
      'https://auth.example.com',
      /^Nothing at \/token: this server is a protected resource \(RFC 9728\).*tokens come from https:\/\/auth\.example\.com/,
    ],
  ])('%s (issuer %s)', (path, issuer, description) => {
    const answer = oauthNotFound(path, issuer);
    expect(answer.error).toBe('not_found');
    expect(answer.error_description).toMatch(description);
    expect(answer.error_description).not.toMatch(LOGIN_WORDS);
  });

  it('cuts a long path', () => {
    expect(oauthNotFound(`/register/${'x'.repeat(5000)}`).error_description.length).toBeLessThan(600);
  });
});
