import type { IncomingMessage } from 'node:http';
import type { Logger } from '../../core/logger.js';
import type { AccessTokenVerifier, ResourceAuthSettings } from '../../auth/resource-server.js';
import { bearer } from './http-guards.js';
import type { ServedClient } from './served-clients.js';
import { expiredToken, insufficientScope } from './refused-token.js';
import {
  clientOfOAuth,
  clientOpens,
  clientPaths,
  decideStatic,
  routePath,
  stillAllowed,
  tokenId,
  type AccessRules,
  type Caller,
  type Route,
} from './route-access.js';

/** What decides who may use which route: read for every request, so a reloaded config applies to the next one. */
export interface HttpSettings {
  /** Required as `Authorization: Bearer` on every route (a view's own tokens also open that view). */
  token?: string;
  /** The config's views; `locked`: its entry cannot be used (nobody opens it, and it closes the other routes). */
  views: readonly { name: string; description?: string; exposure: string; tokens?: string[]; scopes?: string[]; locked?: boolean }[];
  /** serve.auth: access tokens from this authorization server open the routes (beside the static tokens). */
  oauth?: ResourceAuthSettings & { /** Public base URL (serve.auth.resource); default: where it listens. */ resource?: string };
  /** Origins allowed besides loopback ones (serve.allowed_origins, --allow-origin). */
  allowedOrigins?: readonly string[];
  /** Routes served without a credential even when others need one (serve.open_routes, and /metrics for serve.metrics_public). */
  openRoutes?: readonly string[];
  /** serve.clients: how each named client is recognised, the routes it may use, its rules and limits. */
  clients?: readonly ServedClient[];
}

export type Authorized = { ok: true; caller: Caller } | { ok: false; status: number; body: unknown; headers: Record<string, string> };

/** The access rules of route-access.ts, from the settings. */
export function accessRules(s: HttpSettings): AccessRules {
  return {
    ...(s.token !== undefined ? { token: s.token } : {}),
    views: s.views,
    oauth: s.oauth !== undefined,
    open: s.openRoutes ?? [],
    ...(s.clients?.length ? { clients: s.clients } : {}),
  };
}

/** The MCP route an OAuth token must be issued for: a view's own, or /mcp for the server's other routes. */
function audienceRoute(route: Route): string {
  return route.kind === 'view' || route.kind === 'view-info' ? `/view/${encodeURIComponent(route.view)}/mcp` : '/mcp';
}

/**
 * Lets a request onto a route or says why not: the static rules first (route-access.ts), then an
 * OAuth access token when serve.auth is set (signature, issuer, audience, expiry, scope). The
 * verifier is made anew when serve.auth changes.
 */
export class RouteAuth {
  private verifying?: { key: string; verifier: AccessTokenVerifier; module: typeof import('../../auth/resource-server.js') };

  constructor(
    private readonly logger: Logger,
    /** Where serve listens (the default resource base), known once listening. */
    private readonly listenBase: () => string,
  ) {}

  /** The OAuth verifier and the resource base of these settings, if serve.auth is set. */
  async oauthOf(s: HttpSettings) {
    if (!s.oauth) return undefined;
    const key = JSON.stringify(s.oauth);
    if (this.verifying?.key !== key) {
      const module = await import('../../auth/resource-server.js');
      const verifier = new module.AccessTokenVerifier(s.oauth);
      // A wrong issuer shows at once, in the log; tokens are still checked (and the metadata fetched again) on use.
      verifier.warmUp().catch((error: Error) => this.logger.warn(`serve.auth: ${error.message}`));
      this.verifying = { key, verifier, module };
    }
    return { ...this.verifying, resourceBase: s.oauth.resource?.replace(/\/+$/, '') || this.listenBase() };
  }

  /** The scopes that open a route: a view's own, else serve.auth's. */
  scopesOf(s: HttpSettings, route: Route): readonly string[] {
    const view = route.kind === 'view' || route.kind === 'view-info' ? s.views.find((v) => v.name === route.view) : undefined;
    return view?.scopes ?? s.oauth?.scopes ?? [];
  }

  async authorize(s: HttpSettings, req: IncomingMessage, route: Route): Promise<Authorized> {
    return this.authorizeToken(s, bearer(req), route);
  }

  private async authorizeToken(s: HttpSettings, given: string | undefined, route: Route): Promise<Authorized> {
    const decided = decideStatic(accessRules(s), route, given);
    if (decided.allow) return { ok: true, caller: decided.caller };
    // An expired token is told so, not taken for a stranger's: its holder knows to ask for a new one.
    if ('expired' in decided) return expiredToken(decided.expired);
    // A valid credential without access is 403, not 401: a client asked to log in again would loop (RFC 6750 section 3.1).
    if (decided.known) return insufficientScope(route, decided.opens ?? []);
    const oauth = await this.oauthOf(s);
    if (!oauth) {
      const message = given === undefined ? `${routePath(route)} needs a bearer token.` : `The bearer token is not one this server knows.`;
      const challenge = given === undefined ? 'Bearer' : 'Bearer error="invalid_token"';
      return { ok: false, status: 401, body: { error: { code: 'AUTH_FAILED', message } }, headers: { 'www-authenticate': challenge } };
    }
    const { verifier, module: m, resourceBase } = oauth;
    const audience = audienceRoute(route);
    const scopes = this.scopesOf(s, route);
    const metadata = m.metadataUrl(resourceBase, audience);
    const refuse = (status: number, message: string, challenge: Parameters<typeof m.bearerChallenge>[0]): Authorized => ({
      ok: false,
      status,
      body: { error: { code: 'AUTH_FAILED', message } },
      headers: { 'www-authenticate': m.bearerChallenge(challenge) },
    });
    if (!given) return refuse(401, 'This server needs an OAuth access token (see WWW-Authenticate for where to get one).', { metadataUrl: metadata, scopes });
    const check = await verifier.verify(given, [m.resourceOf(resourceBase, audience), resourceBase]);
    if (!check.ok)
      return refuse(401, `The access token was refused: ${check.reason}.`, {
        metadataUrl: metadata,
        scopes,
        error: 'invalid_token',
        description: check.reason,
      });
    if (!m.opens(check.scopes, scopes)) {
      return refuse(403, `The access token does not grant a scope that opens ${audience} (one of: ${scopes.join(', ')}).`, {
        metadataUrl: metadata,
        scopes,
        error: 'insufficient_scope',
        description: `needs one of: ${scopes.join(' ')}`,
      });
    }
    const client = clientOfOAuth(s.clients, check);
    if (client) {
      if (!clientOpens(client, route))
        return {
          ok: false,
          status: 403,
          body: {
            error: {
              code: 'AUTH_FAILED',
              message: `Client ${client.name} may not use ${routePath(route)} (serve.clients.${client.name}.views); it may use ${clientPaths(client).join(', ') || 'no MCP route'}.`,
            },
          },
          headers: {},
        };
      return { ok: true, caller: { id: `client:${client.name}`, via: 'oauth', client: client.name, token: given } };
    }
    return { ok: true, caller: { id: check.subject !== undefined ? `oauth:${check.subject}` : `oauth-${tokenId(given)}`, via: 'oauth', token: given } };
  }

  /** Whether a caller let in earlier may still use the route under these settings (after a reload). */
  async stillAllowed(s: HttpSettings, route: Route, caller: Caller): Promise<boolean> {
    const verdict = stillAllowed(accessRules(s), route, caller);
    if (verdict !== 'recheck-oauth') return verdict;
    const again = await this.authorizeToken(s, caller.token, route).catch(() => undefined);
    return again?.ok === true && again.caller.id === caller.id;
  }
}
