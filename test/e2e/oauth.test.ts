import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { readdirSync, statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, spawnTracked, tempDir, runCommand } from '../helpers/cli.js';
import { serveHttpInProcess, serveStdioInProcess } from '../helpers/in-process.js';
import { waitFor, writeConfig } from '../helpers/upstreams.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/authorization-server.js';

const STATIC_TOKEN = 'static-token-789';
const FOLLOW = `"${process.execPath}" "${join(ROOT, 'test/conformance/follow-redirects.mjs')}"`;

async function startProtected(config: string, env: NodeJS.ProcessEnv = cleanEnv()): Promise<{ base: string; stop: () => void }> {
  const child = spawnTracked(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--config', config], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const ok = await waitFor(() => /listening on (http:\/\/\S+)\/mcp/.test(stderr) || child.exitCode !== null, 20_000);
  const base = /listening on (http:\/\/\S+)\/mcp/.exec(stderr)?.[1];
  if (!ok || !base) throw new Error(`serve --http did not start: ${stderr}`);
  return { base, stop: () => child.kill('SIGTERM') };
}

/** The same serve in this process, where nothing of its process (its environment, its state folder) is the point. */
async function startProtectedHere(config: string): Promise<{ base: string; stop: () => void }> {
  const served = await serveHttpInProcess(config, { exposure: undefined });
  return { base: served.url, stop: () => void served.close() };
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'oauth-e2e', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

async function post(url: string, token?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
}

describe('serve --http as an OAuth protected resource (serve.auth)', () => {
  let as: TestAuthorizationServer;
  let server: { base: string; stop: () => void };

  beforeAll(async () => {
    as = await startAuthorizationServer({ introspectionClient: { id: 'mcpkit', secret: 'introspect-secret' } });
    const config = writeConfig({
      serve: {
        token: STATIC_TOKEN,
        exposure: 'direct',
        auth: { issuer: as.issuer, scopes: ['mcp'], introspection: { client_id: 'mcpkit', client_secret: 'introspect-secret' } },
        // An OAuth-authenticated client named by its tokens' subject (serve.clients).
        clients: { sso: { subject: 'user-7', tools: ['+ config_path', '- *'] } },
      },
      tool_views: { research: { groups: ['retrieve'], scopes: ['research'] } },
    });
    server = await startProtectedHere(config);
  });
  afterAll(async () => {
    server?.stop();
    await as?.close();
  });

  it('publishes protected resource metadata for the server, /mcp and each view', async () => {
    const doc = async (path: string) => (await fetch(`${server.base}/.well-known/oauth-protected-resource${path}`)).json();
    expect(await doc('/mcp')).toEqual({
      resource: `${server.base}/mcp`,
      authorization_servers: [as.issuer],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
      resource_name: 'mcpkit',
    });
    expect(await doc('/view/research/mcp')).toMatchObject({ resource: `${server.base}/view/research/mcp`, scopes_supported: ['research'] });
    expect(await doc('')).toMatchObject({ resource: server.base, scopes_supported: ['mcp', 'research'] });
    expect((await fetch(`${server.base}/.well-known/oauth-protected-resource/view/nope/mcp`)).status).toBe(404);
  });

  it('answers a request without a token with 401 and WWW-Authenticate naming the metadata and scope', async () => {
    const res = await post(`${server.base}/mcp`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.base}/.well-known/oauth-protected-resource/mcp", scope="mcp"`);
    const view = await post(`${server.base}/view/research/mcp`);
    expect(view.headers.get('www-authenticate')).toContain(
      `resource_metadata="${server.base}/.well-known/oauth-protected-resource/view/research/mcp", scope="research"`,
    );
  });

  it('lets a valid token in: the SDK client lists and calls tools', async () => {
    const token = await as.mint({ aud: `${server.base}/mcp`, scope: 'mcp' });
    const client = await connect(`${server.base}/mcp`, token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('config_path');
      const result = await client.callTool({ name: 'config_path', arguments: {} });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    // A token for the server as a whole is accepted on its routes too.
    expect((await post(`${server.base}/mcp`, await as.mint({ aud: server.base, scope: 'mcp' }))).status).toBe(200);
  });

  it("a token whose subject is a named client's gets that client's rules; another subject does not", async () => {
    const named = await connect(`${server.base}/mcp`, await as.mint({ aud: `${server.base}/mcp`, scope: 'mcp', sub: 'user-7' }));
    const other = await connect(`${server.base}/mcp`, await as.mint({ aud: `${server.base}/mcp`, scope: 'mcp', sub: 'user-8' }));
    try {
      expect((await named.listTools()).tools.map((t) => t.name)).toEqual(['config_path']);
      await expect(named.callTool({ name: 'config_validate', arguments: {} })).rejects.toThrow(/Unknown tool/);
      expect((await other.listTools()).tools.length).toBeGreaterThan(1);
    } finally {
      await Promise.allSettled([named.close(), other.close()]);
    }
  });

  it.each([
    ['a wrong audience', { aud: 'https://other.example/mcp', scope: 'mcp' }, /audience/],
    ['an expired token', { aud: 'BASE/mcp', scope: 'mcp', expiresIn: -60 }, /expired/],
    ['a forged signature', { aud: 'BASE/mcp', scope: 'mcp', forged: true }, /signature/],
    ['another issuer', { aud: 'BASE/mcp', scope: 'mcp', iss: 'https://evil.example' }, /authorization server|iss/],
  ])('refuses %s with 401 invalid_token', async (_what, claims, reason) => {
    const token = await as.mint({ ...claims, aud: claims.aud.replace('BASE', server.base) });
    const res = await post(`${server.base}/mcp`, token);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toMatch(reason);
    expect(challenge).toContain(`resource_metadata="${server.base}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('refuses a token without a scope that opens the view with 403 insufficient_scope, and lets the right scope in', async () => {
    const wrong = await as.mint({ aud: `${server.base}/view/research/mcp`, scope: 'mcp' });
    const res = await post(`${server.base}/view/research/mcp`, wrong);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(res.headers.get('www-authenticate')).toContain('scope="research"');
    const right = await as.mint({ aud: `${server.base}/view/research/mcp`, scope: 'research' });
    const client = await connect(`${server.base}/view/research/mcp`, right);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('search');
    } finally {
      await client.close();
    }
  });

  it('checks the audience on every route: a token for /mcp, once accepted there, is still refused on a view', async () => {
    const token = await as.mint({ aud: `${server.base}/mcp`, scope: 'mcp research' });
    expect((await post(`${server.base}/mcp`, token)).status).toBe(200);
    const view = await post(`${server.base}/view/research/mcp`, token);
    expect(view.status).toBe(401);
    expect(view.headers.get('www-authenticate')).toContain('audience');
  });

  it('checks opaque tokens by introspection, and keeps the static token working beside OAuth', async () => {
    expect((await post(`${server.base}/mcp`, as.opaque({ aud: `${server.base}/mcp`, scope: 'mcp' }))).status).toBe(200);
    const inactive = await post(`${server.base}/mcp`, as.opaque({ aud: `${server.base}/mcp`, scope: 'mcp', active: false }));
    expect(inactive.status).toBe(401);
    expect(inactive.headers.get('www-authenticate')).toContain('not active');
    expect((await post(`${server.base}/mcp`, STATIC_TOKEN)).status).toBe(200);
  });
});

describe('an upstream that wants OAuth (auth: oauth)', () => {
  let as: TestAuthorizationServer;
  let upstream: { base: string; stop: () => void };
  const state = tempDir('mcpkit-test-oauth-state-');
  let env: NodeJS.ProcessEnv;
  let config: string;

  beforeAll(async () => {
    as = await startAuthorizationServer({ accessTtl: 2 });
    // The protected server is mcpkit itself, behind serve.auth.
    upstream = await startProtectedHere(writeConfig({ serve: { auth: { issuer: as.issuer, scopes: ['mcp'] } } }));
    config = writeConfig({
      mcp_servers: { prot: { url: `${upstream.base}/mcp`, auth: { type: 'oauth', scopes: ['mcp'] } } },
      tool_views: { prot: { servers: ['prot'], exposure: 'direct' } },
    });
    env = cleanEnv({ XDG_STATE_HOME: state, BROWSER: FOLLOW });
  });
  afterAll(async () => {
    upstream?.stop();
    await as?.close();
  });

  it('says AUTH_REQUIRED naming server login before a login, then logs in and keeps the tokens private', async () => {
    const before = await runCommand(['server', 'test', 'prot', '--config', config], { env });
    expect(before.code).toBe(1);
    expect(before.stderr).toContain('Error [AUTH_REQUIRED]');
    expect(before.stderr).toContain('mcpkit server login prot');
    // The other tools keep working: tools lists mcpkit's own and says what is wrong with prot.
    const tools = await runCommand(['tools', '--config', config], { env });
    expect(tools.code).toBe(0);
    expect(tools.stdout).toContain('config_path');
    expect(tools.stderr).toContain('server prot needs a login');
    expect(tools.stderr).toContain('Run: mcpkit server login prot');

    const login = await runCommand(['server', 'login', 'prot', '--config', config], { env });
    expect(login.stderr).toContain(`${as.issuer}/authorize?`);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('Logged in to prot (scope mcp)');
    expect(`${login.stdout}${login.stderr}`).not.toMatch(/eyJ[\w-]+\.[\w-]+\./); // no token printed

    const files = readdirSync(join(state, 'mcpkit/oauth'));
    expect(files).toEqual(['prot.json']);
    expect(statSync(join(state, 'mcpkit/oauth/prot.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(state, 'mcpkit/oauth')).mode & 0o777).toBe(0o700);
    expect(readFileSync(config, 'utf8')).not.toContain('access_token');

    const list = await runCommand(['server', 'list', '--json', '--config', config], { env });
    const [entry] = (JSON.parse(list.stdout) as { servers: { login: { logged_in: boolean; expires_at: string; refreshable: boolean } }[] }).servers;
    expect(entry!.login).toMatchObject({ logged_in: true, refreshable: true });
    expect(Date.parse(entry!.login.expires_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('a login given up (nobody opens the page) keeps the login that works', async () => {
    const abandoned = await runCommand(['server', 'login', 'prot', '--no-browser', '--timeout-s', '1', '--config', config], { env });
    expect(abandoned.code).toBe(1);
    expect(abandoned.stderr).toContain('Error [TIMEOUT]: No answer from the authorization page within 1 s.');
    expect(abandoned.stderr).toContain(`${as.issuer}/authorize?`);
    const still = await runCommand(['server', 'test', 'prot', '--config', config], { env });
    expect(still.code, still.stderr).toBe(0);
  });

  it('refreshes a token that expires mid-session without the agent noticing, and a revoked refresh token gives AUTH_REQUIRED', async () => {
    const { client } = await serveStdioInProcess({ argv: ['--view', 'prot', '--config', config], env, name: 'agent' });
    try {
      const name = (await client.listTools()).tools.map((t) => t.name).find((n) => n.endsWith('config_show'))!;
      expect(name, JSON.stringify((await client.listTools()).tools.map((t) => t.name))).toBeDefined();
      const refreshes = () => as.grants.filter((g) => g === 'refresh_token').length;
      const call = () => client.callTool({ name, arguments: {} });
      /** Calls every 400 ms, each answered as if nothing happened, until the authorization server saw more refreshes than `count` (15 s at most). */
      const callUntilRefreshedPast = async (count: number) => {
        for (const deadline = Date.now() + 15_000; refreshes() <= count && Date.now() < deadline;) {
          const result = await call();
          expect(result.isError, JSON.stringify(result)).toBeFalsy();
          await new Promise((r) => setTimeout(r, 400));
        }
        expect(refreshes()).toBeGreaterThan(count);
      };
      // Access tokens live 2 s. With expires_in known, mcpkit refreshes ahead of expiry...
      await callUntilRefreshedPast(refreshes());
      // ...and without it, after the server's 401: the agent sees neither.
      as.advertiseExpiry = false;
      await callUntilRefreshedPast(refreshes()); // the next refresh, ahead still, brings a token without expires_in
      // That token is used until the server refuses it (2 s, 1 s of clock tolerance), then refreshed.
      const afterAhead = refreshes();
      await callUntilRefreshedPast(afterAhead);

      as.revokeRefreshTokens();
      // The access token in hand works until it expires (2 s, 1 s of clock tolerance); the refresh then fails.
      let refused = await call();
      for (const deadline = Date.now() + 15_000; !refused.isError && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 250));
        refused = await call();
      }
      expect(refused.isError).toBe(true);
      const error = (refused.structuredContent as { error: { code: string; message: string; hint: string } }).error;
      expect(error.code).toBe('AUTH_REQUIRED');
      expect(error.hint).toContain('mcpkit server login prot');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a server that answers 401 without auth: oauth gets a hint to set it, and a refused header is AUTH_FAILED', async () => {
    const plain = writeConfig({
      mcp_servers: { prot: { url: `${upstream.base}/mcp` }, keyed: { url: `${upstream.base}/mcp`, headers: { Authorization: 'Bearer nope' } } },
    });
    const bare = await runCommand(['server', 'test', 'prot', '--config', plain], { env });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('Error [AUTH_REQUIRED]: Server "prot" wants credentials (HTTP 401).');
    expect(bare.stderr).toContain('--auth oauth --force, then mcpkit server login prot');
    const keyed = await runCommand(['server', 'test', 'keyed', '--config', plain], { env });
    expect(keyed.stderr).toContain('Error [AUTH_FAILED]: Server "keyed" refused the credentials in mcp_servers.keyed.headers (HTTP 401).');
  });

  it('server logout forgets the login', async () => {
    const out = await runCommand(['server', 'logout', 'prot', '--json', '--config', config], { env });
    expect(JSON.parse(out.stdout)).toEqual({ server: 'prot', logged_out: true });
    expect(readdirSync(join(state, 'mcpkit/oauth'))).toEqual([]);
    const again = await runCommand(['server', 'logout', 'prot', '--json', '--config', config], { env });
    expect(JSON.parse(again.stdout)).toEqual({ server: 'prot', logged_out: false });
  });
});

describe('each client its own OAuth login of a per_client server (server login --as)', () => {
  let as: TestAuthorizationServer;
  let upstream: { base: string; stop: () => void };
  let gateway: { base: string; stop: () => void } | undefined;
  const state = tempDir('mcpkit-test-oauth-clients-');
  let env: NodeJS.ProcessEnv;
  let config: string;

  beforeAll(async () => {
    as = await startAuthorizationServer({});
    upstream = await startProtectedHere(writeConfig({ serve: { auth: { issuer: as.issuer, scopes: ['mcp'] } } }));
    config = writeConfig({
      mcp_servers: { prot: { url: `${upstream.base}/mcp`, auth: { type: 'oauth', scopes: ['mcp'] }, per_client: true } },
      tool_views: { prot: { servers: ['prot'], exposure: 'direct' } },
      serve: { clients: { alice: { token: 'alice-token' }, bob: { token: 'bob-token' } } },
    });
    env = cleanEnv({ XDG_STATE_HOME: state, BROWSER: FOLLOW });
  });
  afterAll(async () => {
    gateway?.stop();
    upstream?.stop();
    await as?.close();
  });

  it("a client's login is its own: its calls use it, another client's are refused naming the command", async () => {
    const unknown = await runCommand(['server', 'login', 'prot', '--as', 'carol', '--config', config], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No client named "carol"');
    const login = await runCommand(['server', 'login', 'prot', '--as', 'alice', '--config', config, '--json'], { env });
    expect(login.code, login.stderr).toBe(0);
    expect(JSON.parse(login.stdout)).toMatchObject({ server: 'prot', client: 'alice', logged_in: true });
    expect(readdirSync(join(state, 'mcpkit/oauth'))).toEqual(['prot@alice.json']);

    gateway = await startProtected(config, env);
    const alice = await connect(`${gateway.base}/view/prot/mcp`, 'alice-token');
    const bob = await connect(`${gateway.base}/view/prot/mcp`, 'bob-token');
    try {
      const called = (await alice.callTool({ name: 'config_show', arguments: {} })) as { isError?: boolean };
      expect(called.isError, JSON.stringify(called)).toBeFalsy();
      const refused = (await bob.callTool({ name: 'config_show', arguments: {} }).catch((e: Error) => ({ message: e.message }))) as {
        structuredContent?: unknown;
        message?: string;
      };
      const said = JSON.stringify(refused.structuredContent ?? refused.message);
      expect(said).toMatch(/AUTH_REQUIRED|needs client bob's own login/);
      expect(said).toContain('mcpkit server login prot --as bob');
    } finally {
      await Promise.allSettled([alice.close(), bob.close()]);
    }
    const out = await runCommand(['server', 'logout', 'prot', '--as', 'alice', '--json', '--config', config], { env });
    expect(JSON.parse(out.stdout)).toEqual({ server: 'prot', client: 'alice', logged_out: true });
  }, 60_000);
});
