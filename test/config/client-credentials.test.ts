import { describe, expect, it } from 'vitest';
import { needsOwnConnections, serverForCaller, type CallerIdentity } from '../../src/config/schema/client-credentials.js';
import type { ServerConfig } from '../../src/config/schema/schema.js';

const stdio = (extra: Partial<ServerConfig> = {}) => ({
  name: 'gh',
  config: { command: 'gh-mcp', env: { GITHUB_TOKEN: 'gateway', LEVEL: 'info' }, ...extra } as ServerConfig,
});
const remote = (extra: Partial<ServerConfig> = {}) => ({
  name: 'api',
  config: { url: 'https://api.example/mcp', headers: { Authorization: 'Bearer gateway', 'X-Team': 't' }, ...extra } as ServerConfig,
});
const alice: CallerIdentity = { client: 'alice', credentials: { gh: { env: { GITHUB_TOKEN: 'alice' } }, api: { headers: { Authorization: 'Bearer alice' } } } };
const bob: CallerIdentity = { client: 'bob', credentials: {} };

describe('a server as one caller reaches it (serve.clients.NAME.credentials, per_client)', () => {
  it.each<[string, ReturnType<typeof stdio> | ReturnType<typeof remote>, CallerIdentity | undefined, boolean, Record<string, unknown>]>([
    ["a client's env over the entry's, the rest kept", stdio(), alice, true, { config: { command: 'gh-mcp', env: { GITHUB_TOKEN: 'alice', LEVEL: 'info' } } }],
    [
      "a client's headers over the entry's, the rest kept",
      remote(),
      alice,
      true,
      { config: { url: 'https://api.example/mcp', headers: { Authorization: 'Bearer alice', 'X-Team': 't' } } },
    ],
    [
      'a client without credentials reaches a shared server as the gateway',
      stdio(),
      bob,
      true,
      { config: { env: { GITHUB_TOKEN: 'gateway', LEVEL: 'info' } } },
    ],
    ['over stdio a per_client server is reached with its own entry', stdio({ per_client: true }), undefined, false, { config: { per_client: true } }],
    ["a per_client oauth server uses the client's own login", remote({ per_client: true, auth: 'oauth' }), bob, true, { login: 'api@bob' }],
  ])('%s', (_what, server, identity, perClient, want) => {
    const out = serverForCaller(server, identity, perClient);
    expect(out).toMatchObject(want);
    expect(out.problems).toBeUndefined();
  });

  it.each<[string, CallerIdentity | undefined, RegExp]>([
    ['a named client without credentials', bob, /serve\.clients\.bob\.credentials\.gh \(env\)/],
    ['an unnamed caller', undefined, /Connect as a named client/],
  ])('over HTTP a per_client server is refused to %s, saying what to do', (_what, identity, hint) => {
    const out = serverForCaller(stdio({ per_client: true }), identity, true);
    expect(out.problems?.[0]).toContain('reached only with each client');
    expect(out.problemsHint).toMatch(hint);
    expect(out.config.env).toEqual({ GITHUB_TOKEN: 'gateway', LEVEL: 'info' });
  });

  it.each<[string, CallerIdentity | undefined, boolean]>([
    ['credentials for a server of the view', alice, true],
    ['none, and no per_client server', bob, false],
    ['nobody named', undefined, false],
  ])('own connections: %s', (_what, identity, want) => {
    expect(needsOwnConnections([stdio(), remote()], identity)).toBe(want);
  });

  it('own connections for any named client of a view with a per_client server', () => {
    expect(needsOwnConnections([stdio({ per_client: true })], bob)).toBe(true);
  });
});
