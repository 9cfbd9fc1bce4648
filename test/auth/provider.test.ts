import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoredOAuthProvider } from '../../src/auth/client-provider.js';
import { LoginStore } from '../../src/auth/login-store.js';
import { ToolError } from '../../src/core/errors.js';

const URL_A = 'https://mcp.example/mcp';
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function store(): LoginStore {
  dir = mkdtempSync(join(tmpdir(), 'mcpkit-test-provider-'));
  return new LoginStore(join(dir, 'oauth'));
}

const tokens = (access: string) => ({ access_token: access, token_type: 'Bearer', refresh_token: `r-${access}`, expires_in: 3600 });

describe('StoredOAuthProvider over the login store', () => {
  it('keeps tokens per server and URL in a 0600 file; a login made for another URL is not used', async () => {
    const s = store();
    new StoredOAuthProvider({ server: 'a', url: URL_A, settings: {}, store: s }).saveTokens(tokens('t1'));
    expect(statSync(join(dir!, 'oauth/a.json')).mode & 0o777).toBe(0o600);
    expect((await new StoredOAuthProvider({ server: 'a', url: URL_A, settings: {}, store: s }).tokens())?.access_token).toBe('t1');
    expect(await new StoredOAuthProvider({ server: 'a', url: 'https://elsewhere.example/mcp', settings: {}, store: s }).tokens()).toBeUndefined();
    expect(await new StoredOAuthProvider({ server: 'b', url: URL_A, settings: {}, store: s }).tokens()).toBeUndefined();
  });

  it('tightens a login file and folder that had loose modes on the next write', async () => {
    const s = store();
    const provider = new StoredOAuthProvider({ server: 'a', url: URL_A, settings: {}, store: s });
    provider.saveTokens(tokens('t1'));
    chmodSync(join(dir!, 'oauth/a.json'), 0o644);
    chmodSync(join(dir!, 'oauth'), 0o755);
    provider.saveTokens(tokens('t2'));
    expect(statSync(join(dir!, 'oauth/a.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir!, 'oauth')).mode & 0o777).toBe(0o700);
  });

  it('outside server login, a need for the browser is AUTH_REQUIRED naming the login command', async () => {
    const p = new StoredOAuthProvider({ server: 'linear', url: URL_A, settings: {}, store: store() });
    const error = await Promise.resolve(p.redirectToAuthorization(new URL('https://as.example/authorize'))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('AUTH_REQUIRED');
    expect((error as ToolError).message).toContain('there is no login yet');
    expect((error as ToolError).hint).toBe('Run: mcpkit server login linear');
  });

  it('names a pending step-up scope when the stored login lacks it', async () => {
    const s = store();
    const p = new StoredOAuthProvider({ server: 'a', url: URL_A, settings: {}, store: s });
    p.saveTokens({ ...tokens('t1'), scope: 'read' });
    p.recordStepUp('read write');
    const error = (await Promise.resolve(p.redirectToAuthorization(new URL('https://as.example/authorize'))).catch((e: unknown) => e)) as ToolError;
    expect(error.message).toContain('it asks for scope "read write"');
    // A login that covers it clears it.
    p.saveTokens({ ...tokens('t2'), scope: 'read write' });
    expect(s.read('a', URL_A).step_up_scope).toBeUndefined();
  });

  it('a refused refresh clears the tokens, unless another process refreshed them meanwhile', async () => {
    const s = store();
    const serve = new StoredOAuthProvider({ server: 'a', url: URL_A, settings: {}, store: s });
    serve.saveTokens(tokens('t1'));
    await serve.tokens();
    // A terminal command refreshes first (rotating the refresh token serve holds)...
    new StoredOAuthProvider({ server: 'a', url: URL_A, settings: {}, store: s }).saveTokens(tokens('t2'));
    // ...so serve's refresh is refused, and the SDK asks to forget the tokens: the new ones stay.
    serve.invalidateCredentials('tokens');
    expect(s.read('a', URL_A).tokens?.access_token).toBe('t2');
    // Refused with nothing newer on file: forgotten.
    await serve.tokens();
    serve.invalidateCredentials('tokens');
    expect(s.read('a', URL_A).tokens).toBeUndefined();
  });

  it('a client from the config is used as is and never overwritten by a registration', () => {
    const s = store();
    const p = new StoredOAuthProvider({ server: 'a', url: URL_A, settings: { clientId: 'pre', clientSecret: 'sec' }, store: s });
    p.saveClientInformation({ client_id: 'dynamic' });
    expect(p.clientInformation()).toEqual({ client_id: 'pre', client_secret: 'sec' });
    expect(s.read('a', URL_A).client).toBeUndefined();
  });
});
