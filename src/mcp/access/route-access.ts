import { randomBytes } from 'node:crypto';
import { sameSecret } from './http-guards.js';
import { matchClientToken, tokenDigest, type ClientTokens } from './client-tokens.js';

export { tokenDigest } from './client-tokens.js';

/**
 * Who may use which route of `serve --http`, decided from the config's settings and the request's
 * bearer token alone. Pure: OAuth tokens, which need the authorization server, are checked by the
 * caller (route-auth.ts) when this says the route needs a credential that no static token gave.
 *
 * The rule is "closed by default when anything is closed": once any route is protected (serve.token,
 * serve.auth, a view's `tokens`, or a view whose entry cannot be read and so cannot say what it
 * protected), every route that serve.open_routes does not name needs a credential. A config that
 * protects one view therefore no longer leaves /mcp serving that view's servers to anyone.
 */
export type Route =
  | { kind: 'mcp' }
  | { kind: 'view'; view: string }
  | { kind: 'views' }
  | { kind: 'view-info'; view: string }
  | { kind: 'health' }
  | { kind: 'metrics' };

/** Every kind of route `serve --http` answers (routePath names each): the route table the attack tests walk. */
export const ROUTE_KINDS = ['mcp', 'view', 'views', 'view-info', 'health', 'metrics'] as const satisfies readonly Route['kind'][];
// A kind added to Route and not here fails the build.
type MissingKinds = Exclude<Route['kind'], (typeof ROUTE_KINDS)[number]>;
const allKinds: MissingKinds extends never ? true : false = true;
void allKinds;

export interface AccessRules {
  /** serve.token (or --token): opens every route. */
  token?: string;
  /** The config's views: `tokens` (present, even empty, means the view is protected); `locked` for a view whose entry could not be used. */
  views: readonly { name: string; tokens?: readonly string[]; locked?: boolean }[];
  /** serve.auth is set: OAuth access tokens may open routes (checked by the caller). */
  oauth: boolean;
  /** Routes opened on purpose (serve.open_routes; /metrics also by serve.metrics_public). */
  open: readonly string[];
  /** serve.clients: named clients, by token (or OAuth subject/claims, checked by the caller), each with the routes it may use. */
  clients?: readonly ClientRoutes[];
}

/** A named client as route access sees it: how it is recognised and its routes (view names, "default" for /mcp; none: every route). */
export interface ClientRoutes extends ClientTokens {
  name: string;
  subject?: string;
  claims?: Readonly<Record<string, string | number | boolean>>;
  views?: readonly string[];
}

/** Who a request is, for the session it may open and the quotas it counts against. */
export interface Caller {
  /** Stable and secret-free: `anonymous`, `token:serve`, `token:<sha256 prefix>`, `oauth:<subject>`, `client:<name>`. */
  id: string;
  /** How it was let in. */
  via: 'open' | 'serve-token' | 'view-token' | 'oauth' | 'client';
  /** The name of the configured client it is (serve.clients), by its token or its OAuth token's subject or claims. */
  client?: string;
  /** The bearer token it gave, kept to check it again after a reload (never logged). */
  token?: string;
}

export type StaticDecision =
  /** Let in: by the route being open, or by a static token. */
  | { allow: true; caller: Caller }
  /**
   * Not by a static token and not open: an OAuth token may still open it (when `oauth`), else 401.
   * `known`: the token is one of the config's (a client's, serve's, a view's) that does not open
   * this route: a valid credential without access (403, RFC 6750 insufficient_scope), not a wrong one.
   */
  | { allow: false; known?: true; /** With `known`: the routes the credential does open, to name in the 403. */ opens?: readonly string[] }
  /** A client's token past its token_expires (then): 401 invalid_token saying so, whatever else could open the route. */
  | { allow: false; expired: string };

/** The path a route is named by in serve.open_routes. */
export function routePath(route: Route): string {
  switch (route.kind) {
    case 'mcp':
      return '/mcp';
    case 'view':
      return `/view/${route.view}/mcp`;
    case 'views':
      return '/views';
    case 'view-info':
      return `/views/${route.view}`;
    case 'health':
      return '/health';
    case 'metrics':
      return '/metrics';
  }
}

/** Whether any route needs a credential (then every route not opened on purpose does). */
export function anyRouteClosed(rules: AccessRules): boolean {
  // Named clients are identities with rules: a request without one would go round them.
  return rules.token !== undefined || rules.oauth || (rules.clients?.length ?? 0) > 0 || rules.views.some((v) => v.tokens !== undefined || v.locked === true);
}

/** Whether the route is open without a credential: nothing is closed, or it was opened on purpose. */
export function openRoute(rules: AccessRules, route: Route): boolean {
  if (!anyRouteClosed(rules)) return true;
  const view = route.kind === 'view' || route.kind === 'view-info' ? rules.views.find((v) => v.name === route.view) : undefined;
  // A view whose entry cannot be used is opened by nobody: it is not served anyway.
  if (view?.locked) return false;
  const path = routePath(route);
  if (rules.open.includes(path)) return true;
  // Opening a view's MCP route opens its description too.
  return route.kind === 'view-info' && rules.open.includes(`/view/${route.view}/mcp`);
}

/** The views a static token opens (a token may be listed by several). */
export function viewsOfToken(rules: AccessRules, token: string): string[] {
  return rules.views.filter((v) => !v.locked && v.tokens?.some((t) => sameSecret(token, t))).map((v) => v.name);
}

/**
 * A new client token: 256 random bits, prefixed so that secret scanners and people can tell what
 * it is (`mcpk_`), as GitHub's `ghp_` does.
 */
export function newClientToken(): string {
  return `mcpk_${randomBytes(32).toString('base64url')}`;
}

/** A name for a token that says which it is without saying what it is. */
export function tokenId(token: string): string {
  return `token:${tokenDigest(token).slice(0, 16)}`;
}

/**
 * The named client a bearer token stands for: by its token, the digest of an issued one, or a
 * rotated-out one within its grace (client-tokens.ts), expired or not.
 */
export function clientOfToken<C extends ClientTokens>(clients: readonly C[] | undefined, token: string, now = Date.now()): C | undefined {
  return matchClientToken(clients, token, now)?.client;
}

/**
 * What the static settings say of a request: serve.token opens everything; a view's token opens
 * that view's MCP route and description and the list of views (the list shows only its views);
 * an open route lets anyone in. A token that opens nothing here is left to OAuth, or refused.
 */
export function decideStatic(rules: AccessRules, route: Route, token: string | undefined, now = Date.now()): StaticDecision {
  if (token !== undefined) {
    const match = matchClientToken(rules.clients, token, now);
    if (match?.expired !== undefined) return { allow: false, expired: match.expired };
    const client = match?.client;
    // A client's token opens its routes and nothing else: not the routes open to anyone either (it is someone).
    if (client)
      return clientOpens(client, route)
        ? { allow: true, caller: { id: `client:${client.name}`, via: 'client', client: client.name, token } }
        : { allow: false, known: true, opens: clientPaths(client) };
    if (rules.token !== undefined && sameSecret(token, rules.token)) return { allow: true, caller: { id: 'token:serve', via: 'serve-token', token } };
    const views = viewsOfToken(rules, token);
    if (views.length && tokenOpens(route, views)) return { allow: true, caller: { id: tokenId(token), via: 'view-token', token } };
    if (views.length && !openRoute(rules, route)) return { allow: false, known: true, opens: views.map((view) => routePath({ kind: 'view', view })) };
  }
  if (openRoute(rules, route)) return { allow: true, caller: { id: 'anonymous', via: 'open' } };
  return { allow: false };
}

/** Whether a named client may use a route: its views (and "default" for /mcp), the list of views; /health and /metrics only with every route. */
export function clientOpens(client: Pick<ClientRoutes, 'views'>, route: Route): boolean {
  if (client.views === undefined) return true;
  switch (route.kind) {
    case 'mcp':
      return client.views.includes('default');
    case 'view':
    case 'view-info':
      return client.views.includes(route.view);
    case 'views':
      return true;
    default:
      return false;
  }
}

/** The MCP routes a client with views opens, as paths ("default" is /mcp): what a 403 names. */
export function clientPaths(client: Pick<ClientRoutes, 'views'>): string[] {
  return (client.views ?? []).map((view) => (view === 'default' ? '/mcp' : routePath({ kind: 'view', view })));
}

/** The configured client an OAuth access token stands for: by its subject, else by all the claims a client names. */
export function clientOfOAuth(
  clients: readonly ClientRoutes[] | undefined,
  token: { subject?: string; claims?: Readonly<Record<string, unknown>> },
): ClientRoutes | undefined {
  return clients?.find(
    (c) =>
      (c.subject !== undefined && c.subject === token.subject) ||
      (c.subject === undefined && c.claims !== undefined && Object.entries(c.claims).every(([k, v]) => token.claims?.[k] === v)),
  );
}

function tokenOpens(route: Route, views: readonly string[]): boolean {
  if (route.kind === 'view' || route.kind === 'view-info') return views.includes(route.view);
  return route.kind === 'views';
}

/**
 * Whether a caller let in before a reload may still use the route under the new rules (a token
 * removed, a route closed): the sessions and streams of one that may not are ended. OAuth callers
 * are checked again by the caller of this function (their tokens need the authorization server).
 */
export function stillAllowed(rules: AccessRules, route: Route, caller: Caller, at = Date.now()): boolean | 'recheck-oauth' {
  if (caller.via === 'oauth') return 'recheck-oauth';
  const now = decideStatic(rules, route, caller.token, at);
  if (!now.allow) return false;
  // A caller let in by a token keeps its session only under that token (not because the route is now open to anyone).
  return now.caller.id === caller.id || caller.via === 'open';
}

/** Whether the GET /views listing names the default route (/mcp) to a caller: only where it may open it. */
export function listsDefault(rules: AccessRules, caller: Caller): boolean {
  const client = caller.client !== undefined ? rules.clients?.find((c) => c.name === caller.client) : undefined;
  if (client) return clientOpens(client, { kind: 'mcp' });
  return caller.via !== 'view-token';
}

/** The views the GET /views listing shows a caller: all of them, or those its view token opens. */
export function listedViews<V extends { name: string }>(rules: AccessRules, views: readonly V[], caller: Caller): V[] {
  const client = caller.client !== undefined ? rules.clients?.find((c) => c.name === caller.client) : undefined;
  if (client) return views.filter((v) => clientOpens(client, { kind: 'view', view: v.name }));
  if (caller.via !== 'view-token' || caller.token === undefined) return [...views];
  const mine = new Set(viewsOfToken(rules, caller.token));
  return views.filter((v) => mine.has(v.name));
}
