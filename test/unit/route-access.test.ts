import { describe, expect, it } from 'vitest';
import {
  anyRouteClosed,
  clientOfOAuth,
  decideStatic,
  listedViews,
  openRoute,
  stillAllowed,
  tokenDigest,
  tokenId,
  newClientToken,
  type AccessRules,
  type Route,
} from '../../src/mcp/access/route-access.js';

const rules = (over: Partial<AccessRules> = {}): AccessRules => ({ views: [], oauth: false, open: [], ...over });
const MCP: Route = { kind: 'mcp' };
const VIEW_A: Route = { kind: 'view', view: 'a' };
const INFO_A: Route = { kind: 'view-info', view: 'a' };
const VIEW_B: Route = { kind: 'view', view: 'b' };
const VIEWS: Route = { kind: 'views' };
const METRICS: Route = { kind: 'metrics' };

describe('anyRouteClosed', () => {
  it.each([
    ['nothing set', rules(), false],
    ['serve.token', rules({ token: 't' }), true],
    ['serve.auth', rules({ oauth: true }), true],
    ['a view with tokens', rules({ views: [{ name: 'a', tokens: ['x'] }] }), true],
    ['a view with an empty token list', rules({ views: [{ name: 'a', tokens: [] }] }), true],
    ['a view whose entry cannot be used', rules({ views: [{ name: 'a', locked: true }] }), true],
    ['views without tokens', rules({ views: [{ name: 'a' }, { name: 'b' }] }), false],
  ])('%s', (_what, r, closed) => expect(anyRouteClosed(r)).toBe(closed));
});

describe('decideStatic', () => {
  const viewTokens = rules({ views: [{ name: 'a', tokens: ['va'] }, { name: 'b' }], open: ['/view/b/mcp'] });
  it.each<[string, AccessRules, Route, string | undefined, string | false]>([
    ['an open server lets anyone in', rules(), MCP, undefined, 'anonymous'],
    ['an open server ignores a token it does not know', rules(), MCP, 'whatever', 'anonymous'],
    ['serve.token opens /mcp', rules({ token: 'st' }), MCP, 'st', 'token:serve'],
    ['serve.token opens a view', rules({ token: 'st', views: [{ name: 'a', tokens: ['va'] }] }), VIEW_A, 'st', 'token:serve'],
    ['a wrong token is not let in', rules({ token: 'st' }), MCP, 'nope', false],
    ['no token is not let in', rules({ token: 'st' }), MCP, undefined, false],
    ["a view's token opens its view", viewTokens, VIEW_A, 'va', tokenId('va')],
    ["a view's token opens its description", viewTokens, INFO_A, 'va', tokenId('va')],
    ["a view's token opens the list of views", viewTokens, VIEWS, 'va', tokenId('va')],
    ["a view's token does not open /mcp", viewTokens, MCP, 'va', false],
    ["a view's token does not open /metrics", viewTokens, METRICS, 'va', false],
    ['a route opened on purpose lets anyone in', viewTokens, VIEW_B, undefined, 'anonymous'],
    ['/mcp is closed once a view is protected', viewTokens, MCP, undefined, false],
    ['a view opened on purpose opens its description', viewTokens, { kind: 'view-info', view: 'b' }, undefined, 'anonymous'],
    [
      'a locked view opens for nobody, even on purpose',
      rules({ views: [{ name: 'a', locked: true, tokens: ['va'] }], open: ['/view/a/mcp'] }),
      VIEW_A,
      'va',
      false,
    ],
  ])('%s', (_what, r, route, token, expected) => {
    const decided = decideStatic(r, route, token);
    if (expected === false) expect(decided.allow).toBe(false);
    else expect(decided).toMatchObject({ allow: true, caller: { id: expected } });
  });
});

describe('openRoute', () => {
  it('is every route when nothing is closed, and only the named ones otherwise', () => {
    expect(openRoute(rules(), METRICS)).toBe(true);
    const closed = rules({ token: 't', open: ['/metrics'] });
    expect(openRoute(closed, METRICS)).toBe(true);
    expect(openRoute(closed, MCP)).toBe(false);
  });
});

describe('stillAllowed after a reload', () => {
  it.each<[string, AccessRules, Route, { id: string; via: 'open' | 'serve-token' | 'view-token' | 'oauth'; token?: string }, boolean | 'recheck-oauth']>([
    ['a token still configured', rules({ token: 'st' }), MCP, { id: 'token:serve', via: 'serve-token', token: 'st' }, true],
    ['a token removed', rules({ token: 'other' }), MCP, { id: 'token:serve', via: 'serve-token', token: 'st' }, false],
    ['a token removed, the route now open to anyone', rules(), MCP, { id: 'token:serve', via: 'serve-token', token: 'st' }, false],
    ['an anonymous caller of a route that closed', rules({ token: 'st' }), MCP, { id: 'anonymous', via: 'open' }, false],
    ['an anonymous caller of a route still open', rules(), MCP, { id: 'anonymous', via: 'open' }, true],
    ['an OAuth caller is checked again by the caller', rules({ oauth: true }), MCP, { id: 'oauth:sub', via: 'oauth', token: 'jwt' }, 'recheck-oauth'],
  ])('%s', (_what, r, route, caller, expected) => expect(stillAllowed(r, route, caller)).toBe(expected));
});

describe('listedViews', () => {
  const r = rules({ views: [{ name: 'a', tokens: ['va'] }, { name: 'b', tokens: ['vb'] }, { name: 'c' }] });
  const views = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];
  it('shows a view token only its views, and everyone else all of them', () => {
    expect(listedViews(r, views, { id: tokenId('va'), via: 'view-token', token: 'va' }).map((v) => v.name)).toEqual(['a']);
    expect(listedViews(r, views, { id: 'token:serve', via: 'serve-token', token: 's' }).map((v) => v.name)).toEqual(['a', 'b', 'c']);
  });
});

describe('named clients (serve.clients)', () => {
  const teams = rules({
    views: [{ name: 'a' }, { name: 'b' }],
    clients: [
      { name: 'alice', token: 'ta', views: ['a'] },
      { name: 'bob', token: 'tb' },
      { name: 'carol', token: 'tc', views: ['default'] },
      { name: 'sso', subject: 'user-7' },
      { name: 'ci', claims: { azp: 'ci-bot', env: 'prod' } },
      { name: 'dana', token_sha256: tokenDigest('issued-dana'), views: ['b'] },
    ],
  });
  it('closes every route: a request without a client would go round its rules', () => {
    expect(anyRouteClosed(rules({ clients: [{ name: 'x', token: 't' }] }))).toBe(true);
  });

  it.each<[string, Route, string | undefined, string | false]>([
    ["a client's token opens its view", VIEW_A, 'ta', 'client:alice'],
    ["a client's token opens the list of views", VIEWS, 'ta', 'client:alice'],
    ['but not a view it is not given', VIEW_B, 'ta', false],
    ['nor /mcp unless it names "default"', MCP, 'ta', false],
    ['nor /metrics when it has views', METRICS, 'ta', false],
    ['"default" opens /mcp', MCP, 'tc', 'client:carol'],
    ['a client without views opens every route', VIEW_B, 'tb', 'client:bob'],
    ['a client without views opens /metrics', METRICS, 'tb', 'client:bob'],
    ['no token is not let in', VIEW_A, undefined, false],
    ['an unknown token is not let in', VIEW_A, 'nope', false],
    ["an issued token opens its client's view by its digest", VIEW_B, 'issued-dana', 'client:dana'],
    ['and nothing else', VIEW_A, 'issued-dana', false],
    ['the digest itself is no token', VIEW_B, tokenDigest('issued-dana'), false],
  ])('%s', (_what, route, token, want) => {
    const decided = decideStatic(teams, route, token);
    expect(decided.allow ? decided.caller.id : false).toBe(want);
    if (decided.allow) expect(decided.caller).toMatchObject({ via: 'client', client: want && want.slice('client:'.length) });
  });

  it('lists only its views', () => {
    const alice = decideStatic(teams, VIEWS, 'ta');
    expect(alice.allow && listedViews(teams, [{ name: 'a' }, { name: 'b' }], alice.caller).map((v) => v.name)).toEqual(['a']);
  });

  it('a client removed by a reload loses its route; one whose views change loses the dropped ones', () => {
    const alice = decideStatic(teams, VIEW_A, 'ta');
    expect(alice.allow).toBe(true);
    if (!alice.allow) return;
    expect(stillAllowed(teams, VIEW_A, alice.caller)).toBe(true);
    expect(stillAllowed(rules({ views: teams.views, clients: teams.clients!.filter((c) => c.name !== 'alice') }), VIEW_A, alice.caller)).toBe(false);
    const moved = teams.clients!.map((c) => (c.name === 'alice' ? { ...c, views: ['b'] } : c));
    expect(stillAllowed(rules({ views: teams.views, clients: moved }), VIEW_A, alice.caller)).toBe(false);
  });

  it.each<[string, { subject?: string; claims?: Record<string, unknown> }, string | undefined]>([
    ['by subject', { subject: 'user-7' }, 'sso'],
    ['by every claim it names', { subject: 'svc', claims: { azp: 'ci-bot', env: 'prod', extra: 1 } }, 'ci'],
    ['not by some of them', { subject: 'svc', claims: { azp: 'ci-bot' } }, undefined],
    ['not by a value of another type', { claims: { azp: 'ci-bot', env: ['prod'] } }, undefined],
    ['nobody', { subject: 'someone-else' }, undefined],
  ])('an OAuth token stands for a client %s', (_what, token, want) => {
    expect(clientOfOAuth(teams.clients, token)?.name).toBe(want);
  });
});

describe('issued tokens', () => {
  it('are 256 random bits behind a prefix, never twice the same, and the digest is SHA-256 hex', () => {
    const a = newClientToken();
    expect(a).toMatch(/^mcpk_[A-Za-z0-9_-]{43}$/);
    expect(newClientToken()).not.toBe(a);
    expect(tokenDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('a known issued token on a route it may not open is a credential without access (403), not a wrong one', () => {
    const r = rules({ views: [{ name: 'a' }], clients: [{ name: 'dana', token_sha256: tokenDigest('t'), views: ['a'] }] });
    expect(decideStatic(r, MCP, 't')).toEqual({ allow: false, known: true, opens: ['/view/a/mcp'] });
    expect(decideStatic(r, MCP, 'u')).toEqual({ allow: false });
  });
});

describe('tokens with a life', () => {
  const NOW = Date.parse('2026-11-28T12:00:00.000Z');
  const r = rules({
    views: [{ name: 'a' }, { name: 'b', tokens: ['view-b'] }],
    clients: [
      { name: 'eve', token_sha256: tokenDigest('eve-1'), token_expires: '2026-11-28T12:00:05.000Z', views: ['a', 'default'] },
      {
        name: 'rot',
        token_sha256: tokenDigest('rot-2'),
        previous_token_sha256: tokenDigest('rot-1'),
        previous_token_until: '2026-11-28T12:00:09.000Z',
        views: ['a'],
      },
    ],
  });

  it('an expired token is refused as expired on every route, saying when; before, it opens its routes', () => {
    for (const route of [MCP, VIEW_A, VIEWS]) expect(decideStatic(r, route, 'eve-1', NOW)).toMatchObject({ allow: true });
    for (const route of [MCP, VIEW_A, VIEW_B, VIEWS, METRICS])
      expect(decideStatic(r, route, 'eve-1', NOW + 5_000)).toEqual({ allow: false, expired: '2026-11-28T12:00:05.000Z' });
  });

  it('a rotated-out token is its client until the grace ends, then a stranger (401, not 403)', () => {
    const old = decideStatic(r, VIEW_A, 'rot-1', NOW);
    expect(old.allow && old.caller).toMatchObject({ id: 'client:rot', client: 'rot' });
    expect(decideStatic(r, VIEW_B, 'rot-1', NOW)).toEqual({ allow: false, known: true, opens: ['/view/a/mcp'] });
    expect(decideStatic(r, VIEW_A, 'rot-1', NOW + 9_000)).toEqual({ allow: false });
    expect(decideStatic(r, VIEW_A, 'rot-2', NOW + 9_000)).toMatchObject({ allow: true });
  });

  it("a session's caller loses its route when its token expires or its grace ends", () => {
    const eve = decideStatic(r, VIEW_A, 'eve-1', NOW);
    const rot = decideStatic(r, VIEW_A, 'rot-1', NOW);
    if (!eve.allow || !rot.allow) throw new Error('both are let in before their deadlines');
    expect(stillAllowed(r, VIEW_A, eve.caller, NOW + 4_999)).toBe(true);
    expect(stillAllowed(r, VIEW_A, eve.caller, NOW + 5_000)).toBe(false);
    expect(stillAllowed(r, VIEW_A, rot.caller, NOW + 8_999)).toBe(true);
    expect(stillAllowed(r, VIEW_A, rot.caller, NOW + 9_000)).toBe(false);
  });

  it('a 403 names the routes the credential opens: a view token its views, a client its own', () => {
    expect(decideStatic(r, MCP, 'view-b', NOW)).toEqual({ allow: false, known: true, opens: ['/view/b/mcp'] });
    expect(decideStatic(r, VIEW_B, 'eve-1', NOW)).toEqual({ allow: false, known: true, opens: ['/view/a/mcp', '/mcp'] });
  });
});
