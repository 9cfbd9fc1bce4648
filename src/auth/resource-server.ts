import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/client';

/**
 * `serve --http` as an OAuth protected resource (MCP 2025-11-25 basic/authorization, RFC 9728,
 * RFC 6750): the metadata it publishes, the challenge it answers with, and the check of an access
 * token, which is a JWT from the configured issuer (signature against the issuer's published
 * keys, issuer, audience, expiry), or any token the issuer's introspection endpoint calls active.
 */
export interface ResourceAuthSettings {
  issuer: string;
  /** Scopes that open /mcp (any one); empty: none needed. */
  scopes: readonly string[];
  jwksUri?: string;
  introspection?: { url?: string; clientId: string; clientSecret: string };
}

/** `expiresAt`: when the token stops being valid (ms since the epoch), if it says. */
export type TokenCheck =
  | {
      ok: true;
      scopes: string[];
      subject?: string;
      expiresAt?: number;
      /** Every claim, for serve.clients.NAME.claims. */ claims?: Readonly<Record<string, unknown>>;
    }
  | { ok: false; reason: string };

/** A token accepted is taken at its word this long at most (a revoked opaque token works that long). */
const REMEMBER_MS = 60_000;
const REMEMBER_MAX = 1000;

/** Where a route's metadata document is: the well-known prefix inserted before the path (RFC 9728 section 3.1). */
export function metadataUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/.well-known/oauth-protected-resource${path === '/' ? '' : path}`;
}

/** The route a metadata path describes ("/mcp" for /.well-known/oauth-protected-resource/mcp); undefined for other paths. */
export function routeOfMetadataPath(path: string): string | undefined {
  const prefix = '/.well-known/oauth-protected-resource';
  if (path === prefix) return '/';
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
}

/** The resource identifier of a route: the base URL plus its path ("/" is the base itself). */
export function resourceOf(base: string, route: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return route === '/' ? trimmed : `${trimmed}${route}`;
}

/** The protected resource metadata document (RFC 9728 section 2) of a route. */
export function resourceMetadata(settings: { issuer: string; resource: string }, route: string, scopes: readonly string[]): Record<string, unknown> {
  return {
    resource: resourceOf(settings.resource, route),
    authorization_servers: [settings.issuer],
    ...(scopes.length ? { scopes_supported: [...scopes] } : {}),
    bearer_methods_supported: ['header'],
    resource_name: 'mcpkit',
  };
}

const quoted = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** A WWW-Authenticate value (RFC 6750 section 3, RFC 9728 section 5.1). */
export function bearerChallenge(options: {
  metadataUrl: string;
  scopes?: readonly string[];
  error?: 'invalid_token' | 'insufficient_scope' | 'invalid_request';
  description?: string;
}): string {
  const params = [`resource_metadata=${quoted(options.metadataUrl)}`];
  if (options.scopes?.length) params.push(`scope=${quoted(options.scopes.join(' '))}`);
  if (options.error) params.push(`error=${quoted(options.error)}`);
  if (options.description) params.push(`error_description=${quoted(options.description)}`);
  return `Bearer ${params.join(', ')}`;
}

/** The scopes a token grants: `scope` (a space-separated string, RFC 9068) or `scp` (a list). */
export function grantedScopes(claims: { scope?: unknown; scp?: unknown }): string[] {
  if (typeof claims.scope === 'string') return claims.scope.split(/\s+/).filter(Boolean);
  if (Array.isArray(claims.scp)) return claims.scp.filter((s): s is string => typeof s === 'string');
  if (typeof claims.scp === 'string') return claims.scp.split(/\s+/).filter(Boolean);
  return [];
}

/** Whether granted scopes open a route that needs any one of `required` (none: any valid token). */
export function opens(granted: readonly string[], required: readonly string[]): boolean {
  return required.length === 0 || required.some((s) => granted.includes(s));
}

/** Checks access tokens; the issuer's metadata and keys are fetched once and cached (jose refreshes the keys on rotation). */
export class AccessTokenVerifier {
  private metadata?: Promise<{ jwks_uri?: string; introspection_endpoint?: string }>;
  private keys?: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly settings: ResourceAuthSettings) {}

  private issuerMetadata(): Promise<{ jwks_uri?: string; introspection_endpoint?: string }> {
    this.metadata ??= discoverAuthorizationServerMetadata(this.settings.issuer)
      .then((m) => (m ?? {}) as { jwks_uri?: string; introspection_endpoint?: string })
      .catch((error: Error) => {
        this.metadata = undefined; // try again on the next token
        throw new Error(`cannot read the metadata of the authorization server ${this.settings.issuer}: ${error.message}`);
      });
    return this.metadata;
  }

  /** Fetches the issuer's metadata now, so a wrong issuer shows when serve starts. */
  async warmUp(): Promise<void> {
    if (this.settings.jwksUri && this.settings.introspection?.url) return;
    await this.issuerMetadata();
  }

  /** Accepted tokens, by the audiences they were checked for and the token: a check per request costs more than the proxying. */
  private readonly remembered = new Map<string, { check: TokenCheck; until: number }>();

  /**
   * Whether the token was issued for one of `audiences`, still valid, and what it grants. An
   * accepted token is remembered for a minute at most, never past its expiry, and only for the
   * same audiences (a token for one route proves nothing for another).
   */
  async verify(token: string, audiences: readonly string[], now = Date.now()): Promise<TokenCheck> {
    const key = `${audiences.join(' ')}\n${token}`;
    const known = this.remembered.get(key);
    if (known && known.until > now) return known.check;
    const check = await this.check(token, audiences);
    if (check.ok) {
      if (this.remembered.size >= REMEMBER_MAX) this.remembered.delete(this.remembered.keys().next().value!);
      this.remembered.set(key, { check, until: Math.min(now + REMEMBER_MS, check.expiresAt ?? Infinity) });
    }
    return check;
  }

  private async check(token: string, audiences: readonly string[]): Promise<TokenCheck> {
    let looksLikeJwt: boolean;
    try {
      looksLikeJwt = token.split('.').length === 3 && decodeProtectedHeader(token).alg !== undefined;
    } catch {
      looksLikeJwt = false;
    }
    if (looksLikeJwt) return this.verifyJwt(token, audiences);
    if (this.settings.introspection) return this.introspect(token, audiences);
    return { ok: false, reason: 'the token is not a JWT and serve.auth.introspection is not set' };
  }

  private async verifyJwt(token: string, audiences: readonly string[]): Promise<TokenCheck> {
    if (!this.keys) {
      const uri = this.settings.jwksUri ?? (await this.issuerMetadata()).jwks_uri;
      if (!uri)
        return { ok: false, reason: `the authorization server ${this.settings.issuer} publishes no jwks_uri (set serve.auth.jwks_uri, or use introspection)` };
      this.keys = createRemoteJWKSet(new URL(uri));
    }
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.settings.issuer,
        audience: [...audiences],
        requiredClaims: ['exp'],
        clockTolerance: 1,
      });
      return {
        ok: true,
        scopes: grantedScopes(payload as JWTPayload & { scope?: unknown; scp?: unknown }),
        ...(payload.sub ? { subject: payload.sub } : {}),
        expiresAt: payload.exp! * 1000,
        claims: payload,
      };
    } catch (error) {
      return { ok: false, reason: jwtProblem(error as Error & { code?: string; claim?: string }) };
    }
  }

  private async introspect(token: string, audiences: readonly string[]): Promise<TokenCheck> {
    const { clientId, clientSecret } = this.settings.introspection!;
    const url = this.settings.introspection!.url ?? (await this.issuerMetadata()).introspection_endpoint;
    if (!url)
      return { ok: false, reason: `the authorization server ${this.settings.issuer} publishes no introspection_endpoint (set serve.auth.introspection.url)` };
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return { ok: false, reason: `the introspection endpoint answered HTTP ${response.status}` };
    const info = (await response.json()) as { active?: boolean; aud?: string | string[]; exp?: number; iss?: string; scope?: string; sub?: string };
    if (info.active !== true) return { ok: false, reason: 'the token is not active (expired or revoked)' };
    if (info.exp !== undefined && info.exp * 1000 < Date.now()) return { ok: false, reason: 'the token has expired' };
    if (info.iss !== undefined && info.iss !== this.settings.issuer)
      return { ok: false, reason: `the token was issued by ${info.iss}, not ${this.settings.issuer}` };
    const aud = info.aud === undefined ? [] : Array.isArray(info.aud) ? info.aud : [info.aud];
    if (!aud.some((a) => audiences.includes(a))) return { ok: false, reason: 'the token was not issued for this server (audience)' };
    return {
      ok: true,
      scopes: grantedScopes(info),
      ...(info.sub ? { subject: info.sub } : {}),
      ...(info.exp !== undefined ? { expiresAt: info.exp * 1000 } : {}),
      claims: info,
    };
  }
}

/** jose's refusal in words for error_description (never the token). */
function jwtProblem(error: Error & { code?: string; claim?: string }): string {
  switch (error.code) {
    case 'ERR_JWT_EXPIRED':
      return 'the token has expired';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return "the token's signature does not verify with the issuer's keys";
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return error.claim === 'aud'
        ? 'the token was not issued for this server (audience)'
        : error.claim === 'iss'
          ? 'the token was not issued by the configured authorization server'
          : `the token's ${error.claim} claim is not acceptable`;
    default:
      return `the token is not valid (${error.message})`;
  }
}
