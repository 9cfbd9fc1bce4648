import { describe, expect, it } from 'vitest';
import { openerFor } from '../../src/auth/browser.js';
import { loginStatus, type StoredLogin } from '../../src/auth/login-store.js';
import { bearerChallenge, grantedScopes, metadataUrl, opens, resourceMetadata, resourceOf, routeOfMetadataPath } from '../../src/auth/resource-server.js';
import { covers, joinScopes, loginScope } from '../../src/auth/scopes.js';
import { oauthSettings } from '../../src/auth/settings.js';

describe('loginScope: what a login asks for', () => {
  it.each([
    ["the challenge's scope", 'mcp:basic', undefined, ['cfg'], 'mcp:basic'],
    ["the config's scopes when the challenge names none", undefined, undefined, ['a', 'b'], 'a b'],
    ['nothing when neither names any (the SDK then uses scopes_supported)', undefined, undefined, undefined, undefined],
    ["a step-up scope on top of the challenge's", 'mcp:basic', 'mcp:basic mcp:write', undefined, 'mcp:basic mcp:write'],
    ["a step-up scope on top of the config's", '', 'write', ['read'], 'read write'],
    ['no repeats, in first-seen order', 'b a', 'a c b', undefined, 'b a c'],
  ])('%s', (_what, challenge, stepUp, configured, expected) => {
    expect(loginScope(challenge, stepUp, configured)).toBe(expected);
  });

  it.each([
    [['a b', 'b c'], 'a b c'],
    [['  ', ''], undefined],
  ])('joinScopes(%j) = %j', (scopes, expected) => expect(joinScopes(scopes)).toBe(expected));

  it.each([
    ['a b c', 'a c', true],
    ['a', 'a b', false],
    [undefined, undefined, true],
    [undefined, 'a', false],
  ])('covers(%j, %j) = %j', (granted, needed, expected) => expect(covers(granted, needed)).toBe(expected));
});

describe('oauthSettings', () => {
  it.each([
    [{}, undefined],
    [{ auth: 'oauth' as const }, {}],
    [
      { auth: { type: 'oauth' as const, client_id: 'id', scopes: ['s'] } },
      { clientId: 'id', clientSecret: undefined, scopes: ['s'], clientMetadataUrl: undefined },
    ],
  ])('%j -> %j', (server, expected) => expect(oauthSettings(server)).toEqual(expected));
});

describe('openerFor: how the authorization page is opened', () => {
  it.each([
    [{ BROWSER: 'firefox --new-tab' }, 'linux', { command: 'sh', args: ['-c', 'firefox --new-tab "$1"', 'sh'], shell: false }],
    [{ BROWSER: '  ' }, 'linux', { command: 'xdg-open', args: [], shell: false }],
    [{}, 'darwin', { command: 'open', args: [], shell: false }],
    [{}, 'win32', { command: 'cmd', args: ['/c', 'start', '""'], shell: false }],
  ] as const)('%j on %s', (env, platform, expected) => expect(openerFor(env, platform)).toEqual(expected));
});

describe('loginStatus: what server list says, never a token', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it.each<[string, StoredLogin, ReturnType<typeof loginStatus>]>([
    ['no login', { url: 'u' }, { logged_in: false }],
    ['no login, a step-up pending', { url: 'u', step_up_scope: 'w' }, { logged_in: false, step_up_scope: 'w' }],
    [
      'valid for an hour',
      { url: 'u', tokens: { access_token: 'secret', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r', scope: 'mcp' }, obtained_at: now },
      { logged_in: true, expires_at: '2026-11-23T13:00:00.000Z', expired: false, refreshable: true, scope: 'mcp' },
    ],
    [
      'expired, no refresh token',
      { url: 'u', tokens: { access_token: 'secret', token_type: 'Bearer', expires_in: 60 }, obtained_at: now - 120_000 },
      { logged_in: true, expires_at: '2026-11-23T11:59:00.000Z', expired: true, refreshable: false },
    ],
    ['no expiry said', { url: 'u', tokens: { access_token: 'secret', token_type: 'Bearer' } }, { logged_in: true, refreshable: false }],
  ])('%s', (_what, login, expected) => {
    const status = loginStatus(login, now);
    expect(status).toEqual(expected);
    expect(JSON.stringify(status)).not.toContain('secret');
  });
});

describe('the protected resource side', () => {
  it.each([
    ['http://h:1', '/mcp', 'http://h:1/.well-known/oauth-protected-resource/mcp'],
    ['http://h:1/', '/view/a/mcp', 'http://h:1/.well-known/oauth-protected-resource/view/a/mcp'],
    ['https://x.example/base', '/', 'https://x.example/base/.well-known/oauth-protected-resource'],
  ])('metadataUrl(%s, %s)', (base, route, expected) => expect(metadataUrl(base, route)).toBe(expected));

  it.each([
    ['/.well-known/oauth-protected-resource', '/'],
    ['/.well-known/oauth-protected-resource/mcp', '/mcp'],
    ['/.well-known/oauth-protected-resource/view/a/mcp', '/view/a/mcp'],
    ['/.well-known/oauth-protected-resourcex', undefined],
    ['/mcp', undefined],
  ])('routeOfMetadataPath(%s) = %j', (path, expected) => expect(routeOfMetadataPath(path)).toBe(expected));

  it.each([
    ['http://h:1', '/', 'http://h:1'],
    ['http://h:1/', '/mcp', 'http://h:1/mcp'],
  ])('resourceOf(%s, %s)', (base, route, expected) => expect(resourceOf(base, route)).toBe(expected));

  it('resourceMetadata names the issuer and, when any, the scopes', () => {
    expect(resourceMetadata({ issuer: 'https://as', resource: 'https://rs' }, '/mcp', [])).toEqual({
      resource: 'https://rs/mcp',
      authorization_servers: ['https://as'],
      bearer_methods_supported: ['header'],
      resource_name: 'mcpkit',
    });
    expect(resourceMetadata({ issuer: 'https://as', resource: 'https://rs' }, '/mcp', ['a'])).toMatchObject({ scopes_supported: ['a'] });
  });

  it.each([
    [{ metadataUrl: 'https://rs/m' }, 'Bearer resource_metadata="https://rs/m"'],
    [{ metadataUrl: 'https://rs/m', scopes: ['a', 'b'] }, 'Bearer resource_metadata="https://rs/m", scope="a b"'],
    [
      { metadataUrl: 'https://rs/m', scopes: ['a'], error: 'insufficient_scope' as const, description: 'needs "a"' },
      'Bearer resource_metadata="https://rs/m", scope="a", error="insufficient_scope", error_description="needs \\"a\\""',
    ],
  ])('bearerChallenge(%j)', (options, expected) => expect(bearerChallenge(options)).toBe(expected));

  it.each([
    [{ scope: 'a  b' }, ['a', 'b']],
    [{ scp: ['a', 1, 'b'] }, ['a', 'b']],
    [{ scp: 'a b' }, ['a', 'b']],
    [{}, []],
  ])('grantedScopes(%j)', (claims, expected) => expect(grantedScopes(claims)).toEqual(expected));

  it.each([
    [['a'], [], true],
    [[], ['a'], false],
    [['b', 'c'], ['a', 'c'], true],
  ])('opens(%j, %j) = %j', (granted, required, expected) => expect(opens(granted, required)).toBe(expected));
});

describe('the config entries for OAuth', async () => {
  const { configSchema } = await import('../../src/config/schema/schema.js');
  const problems = (config: object) => {
    const r = configSchema.safeParse(config);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  it.each([
    ['auth: oauth on a remote server', { mcp_servers: { a: { url: 'https://x.example/mcp', auth: 'oauth' } } }, []],
    [
      'a pre-registered client',
      { mcp_servers: { a: { url: 'https://x.example/mcp', auth: { type: 'oauth', client_id: 'c', client_secret: '${S}', scopes: ['r'] } } } },
      [],
    ],
    [
      'auth on a stdio server',
      { mcp_servers: { a: { command: 'x', auth: 'oauth' } } },
      ['mcp_servers.a.auth: auth is for remote servers (url); a stdio server gets its credentials from env'],
    ],
    [
      'a client metadata URL that is not https',
      { mcp_servers: { a: { url: 'https://x.example/mcp', auth: { type: 'oauth', client_metadata_url: 'http://x/c.json' } } } },
      ['mcp_servers.a.auth.client_metadata_url: client_metadata_url must be an https URL'],
    ],
    [
      'serve.auth with an issuer and view scopes',
      { serve: { auth: { issuer: 'https://as.example', scopes: ['mcp'] } }, tool_views: { v: { scopes: ['v'] } } },
      [],
    ],
    ['serve.auth without an issuer', { serve: { auth: { scopes: ['mcp'] } } }, ['serve.auth.issuer: ']],
  ])('%s', (_what, config, expected) => {
    const found = problems(config);
    if (expected.length === 0) expect(found).toEqual([]);
    // Each expected problem is the start of one found (zod words the missing-field message itself).
    for (const problem of expected)
      expect(
        found.some((p) => p.startsWith(problem)),
        found.join('\n'),
      ).toBe(true);
  });
});
