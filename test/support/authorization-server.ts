/**
 * An OAuth 2.1 authorization server for tests, written from the public specifications (RFC 8414
 * metadata, RFC 7591 registration, RFC 7636 PKCE, RFC 8707 resource, RFC 9068 JWT access tokens,
 * RFC 7662 introspection, RFC 7517 JWKS): what a real one (Keycloak, Auth0, ...) says on the wire.
 * Its authorization endpoint consents at once and redirects with a code, as a signed-in user who
 * clicks "allow" would. Tests steer it: token lifetime, revoking refresh tokens, minting tokens.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface TestAuthorizationServer {
  issuer: string;
  /** Seconds an access token lives (changeable mid-test). */
  accessTtl: number;
  /** Whether token responses say expires_in (without it a client learns of expiry from a 401). */
  advertiseExpiry: boolean;
  /** Grants seen at the token endpoint, in order (authorization_code, refresh_token). */
  readonly grants: string[];
  /** Every refresh token issued so far stops working (as a user revoking the app does). */
  revokeRefreshTokens(): void;
  /** A token as this server would issue it, or with one thing wrong. */
  mint(claims: { aud?: string | string[]; scope?: string; expiresIn?: number; iss?: string; forged?: boolean; sub?: string }): Promise<string>;
  /** An opaque token known to introspection. */
  opaque(claims: { aud: string; scope?: string; active?: boolean }): string;
  close(): Promise<void>;
}

export async function startAuthorizationServer(
  options: { accessTtl?: number; introspectionClient?: { id: string; secret: string } } = {},
): Promise<TestAuthorizationServer> {
  const keys = await generateKeyPair('ES256');
  const forger = await generateKeyPair('ES256');
  const publicJwk: JWK = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const clients = new Map<string, { redirect_uris: string[]; secret?: string }>();
  const codes = new Map<string, { client: string; challenge: string; redirect: string; scope?: string; resource?: string }>();
  const refreshTokens = new Map<string, { client: string; scope?: string; resource?: string }>();
  const opaqueTokens = new Map<string, { aud: string; scope?: string; active: boolean }>();
  let issuer = '';

  const sign = (key: CryptoKey, claims: { aud?: string | string[]; scope?: string; expiresIn: number; iss?: string; sub?: string }) => {
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ ...(claims.scope ? { scope: claims.scope } : {}), client_id: 'test' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
      .setIssuer(claims.iss ?? issuer)
      .setSubject(claims.sub ?? 'user-1')
      .setIssuedAt(now)
      .setExpirationTime(now + claims.expiresIn)
      .setJti(randomBytes(8).toString('hex'));
    if (claims.aud !== undefined) jwt.setAudience(claims.aud);
    return jwt.sign(key);
  };

  const server: TestAuthorizationServer = {
    issuer: '',
    accessTtl: options.accessTtl ?? 3600,
    advertiseExpiry: true,
    grants: [],
    revokeRefreshTokens: () => refreshTokens.clear(),
    mint: (claims) => sign(claims.forged ? forger.privateKey : keys.privateKey, { ...claims, expiresIn: claims.expiresIn ?? 3600 }),
    opaque: (claims) => {
      const token = `opaque-${randomBytes(12).toString('hex')}`;
      opaqueTokens.set(token, { aud: claims.aud, scope: claims.scope, active: claims.active ?? true });
      return token;
    },
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const form = async (req: IncomingMessage): Promise<URLSearchParams> => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return new URLSearchParams(text);
  };
  const clientOf = (req: IncomingMessage, body: URLSearchParams): string | undefined => {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    if (basic) {
      const [id, secret] = Buffer.from(basic[1]!, 'base64').toString().split(':').map(decodeURIComponent);
      return clients.get(id!)?.secret === secret ? id : undefined;
    }
    const id = body.get('client_id') ?? undefined;
    const client = id ? clients.get(id) : undefined;
    if (!client) return undefined;
    return client.secret === undefined || client.secret === body.get('client_secret') ? id : undefined;
  };
  const issueTokens = async (client: string, scope: string | undefined, resource: string | undefined) => {
    const refresh = randomBytes(16).toString('hex');
    refreshTokens.set(refresh, { client, scope, resource });
    return {
      access_token: await sign(keys.privateKey, { aud: resource, scope, expiresIn: server.accessTtl }),
      token_type: 'Bearer',
      ...(server.advertiseExpiry ? { expires_in: server.accessTtl } : {}),
      refresh_token: refresh,
      ...(scope ? { scope } : {}),
    };
  };

  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    void (async () => {
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          jwks_uri: `${issuer}/jwks`,
          introspection_endpoint: `${issuer}/introspect`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
        });
      }
      if (url.pathname === '/jwks') return json(res, 200, { keys: [publicJwk] });
      if (url.pathname === '/register' && req.method === 'POST') {
        let text = '';
        for await (const chunk of req) text += chunk;
        const meta = JSON.parse(text) as { redirect_uris?: string[] };
        const id = `client-${randomBytes(6).toString('hex')}`;
        clients.set(id, { redirect_uris: meta.redirect_uris ?? [] });
        return json(res, 201, { ...meta, client_id: id, token_endpoint_auth_method: 'none' });
      }
      if (url.pathname === '/authorize') {
        const q = url.searchParams;
        const client = clients.get(q.get('client_id') ?? '');
        const redirect = q.get('redirect_uri') ?? '';
        if (!client || !client.redirect_uris.includes(redirect))
          return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
        if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
          return json(res, 400, { error: 'invalid_request', error_description: 'PKCE S256 is required' });
        const code = randomBytes(12).toString('hex');
        codes.set(code, {
          client: q.get('client_id')!,
          challenge: q.get('code_challenge')!,
          redirect,
          scope: q.get('scope') ?? undefined,
          resource: q.get('resource') ?? undefined,
        });
        const back = new URL(redirect);
        back.searchParams.set('code', code);
        if (q.get('state')) back.searchParams.set('state', q.get('state')!);
        res.writeHead(302, { location: back.href });
        return res.end();
      }
      if (url.pathname === '/token' && req.method === 'POST') {
        const body = await form(req);
        const client = clientOf(req, body);
        if (!client) return json(res, 401, { error: 'invalid_client' });
        const grant = body.get('grant_type') ?? '';
        server.grants.push(grant);
        if (grant === 'authorization_code') {
          const code = codes.get(body.get('code') ?? '');
          codes.delete(body.get('code') ?? '');
          const verifier = body.get('code_verifier') ?? '';
          if (!code || code.client !== client || code.redirect !== body.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant' });
          if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge)
            return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
          return json(res, 200, await issueTokens(client, code.scope, body.get('resource') ?? code.resource));
        }
        if (grant === 'refresh_token') {
          const stored = refreshTokens.get(body.get('refresh_token') ?? '');
          if (!stored || stored.client !== client)
            return json(res, 400, { error: 'invalid_grant', error_description: 'the refresh token is revoked or unknown' });
          refreshTokens.delete(body.get('refresh_token')!); // rotation
          return json(res, 200, await issueTokens(client, stored.scope, body.get('resource') ?? stored.resource));
        }
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      if (url.pathname === '/introspect' && req.method === 'POST') {
        const body = await form(req);
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
        const [id, secret] = basic ? Buffer.from(basic[1]!, 'base64').toString().split(':').map(decodeURIComponent) : [];
        if (!options.introspectionClient || id !== options.introspectionClient.id || secret !== options.introspectionClient.secret)
          return json(res, 401, { error: 'invalid_client' });
        const token = opaqueTokens.get(body.get('token') ?? '');
        if (!token || !token.active) return json(res, 200, { active: false });
        return json(res, 200, {
          active: true,
          aud: token.aud,
          iss: issuer,
          ...(token.scope ? { scope: token.scope } : {}),
          exp: Math.floor(Date.now() / 1000) + 600,
          sub: 'user-1',
        });
      }
      json(res, 404, { error: 'not_found' });
    })().catch((error: Error) => json(res, 500, { error: 'server_error', error_description: error.message }));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  server.issuer = issuer;
  return server;
}
