import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLoopbackAddress, refusedByOrigin } from '../access/http-guards.js';
import { isOAuthPath, oauthNotFound } from '../access/oauth-paths.js';
import type { Route } from '../access/route-access.js';
import type { HttpSettings, RouteAuth } from '../access/route-auth.js';
import type { HttpServeOptions } from './http-options.js';
import { health, methodAllowed, ROUTES, type HttpParts, type RouteRequest } from './http-routes.js';
import { jsonRpcError, requestPath, routeOfPath, sendJson, viewPath } from './http-wire.js';

/**
 * The front door: where the request comes from (Origin, Host), which route it names, and who the
 * caller is; then the route's handler. /health answers everyone (its detail only to a caller let in).
 */
export function frontDoor(options: HttpServeOptions, parts: HttpParts, auth: RouteAuth) {
  const loopbackBound = isLoopbackAddress(options.host);
  return async (req: IncomingMessage, res: ServerResponse): Promise<unknown> => {
    const s = await options.settings();
    const refused = refusedByOrigin({ host: req.headers.host, origin: req.headers.origin }, { loopbackBound, allowedOrigins: s.allowedOrigins ?? [] });
    if (refused) return jsonRpcError(res, 403, -32000, `Forbidden: ${refused}.`);
    let path: string;
    try {
      path = requestPath(req.url);
    } catch {
      const shown = JSON.stringify((req.url ?? '').slice(0, 200));
      return sendJson(res, 400, {
        error: { code: 'INVALID_INPUT', message: `The request target ${shown} is not a path. Routes: /mcp, /view/{name}/mcp, /views, /health.` },
      });
    }
    let route: Route | undefined;
    try {
      route = routeOfPath(path);
    } catch {
      return sendJson(res, 400, { error: { code: 'INVALID_INPUT', message: `The path ${path} has a malformed %-escape.` } });
    }
    if (s.oauth && path.startsWith('/.well-known/oauth-protected-resource')) return oauthMetadata(auth, res, req, s, path);
    // An OAuth client's discovery, and its registration after a 401, read an error as RFC 6749 shapes it: `error` a string.
    if (isOAuthPath(path)) return sendJson(res, 404, oauthNotFound(path, s.oauth?.issuer), { 'cache-control': 'no-store' });
    if (!route || (route.kind === 'metrics' && !options.metrics)) {
      return sendJson(res, 404, {
        error: { code: 'NOT_FOUND', message: `Nothing at ${path}. Routes: /mcp, /view/{name}/mcp, /views, /views/{name}, /health, /metrics.` },
      });
    }
    const decided = await auth.authorize(s, req, route);
    if (route.kind === 'health' && !decided.ok) return health(parts, res, false);
    if (!decided.ok) return sendJson(res, decided.status, decided.body, decided.headers);
    if (!methodAllowed(route, req.method)) return sendJson(res, 405, { error: { code: 'INVALID_INPUT', message: `${req.method} is not allowed on ${path}.` } });
    const request: RouteRequest = { req, res, path, route, settings: s, caller: decided.caller };
    return (ROUTES[route.kind] as (parts: HttpParts, request: RouteRequest) => unknown)(parts, request);
  };
}

/** Protected resource metadata (RFC 9728): public by design, what a client reads to learn where to get a token. */
async function oauthMetadata(auth: RouteAuth, res: ServerResponse, req: IncomingMessage, s: HttpSettings, path: string): Promise<unknown> {
  const oauth = (await auth.oauthOf(s))!;
  const described = oauth.module.routeOfMetadataPath(path);
  const viewName = s.views.find((v) => viewPath(v.name) === described)?.name;
  if (!described || !(described === '/' || described === '/mcp' || viewName !== undefined) || req.method !== 'GET') {
    return sendJson(res, 404, oauthNotFound(path, s.oauth!.issuer));
  }
  // The server as a whole names every scope that opens a part of it.
  const scopes =
    described === '/'
      ? [...new Set([...(s.oauth!.scopes ?? []), ...s.views.flatMap((v) => v.scopes ?? [])])]
      : auth.scopesOf(s, viewName !== undefined ? { kind: 'view', view: viewName } : { kind: 'mcp' });
  return sendJson(res, 200, oauth.module.resourceMetadata({ issuer: s.oauth!.issuer, resource: oauth.resourceBase }, described, scopes), {
    'cache-control': 'max-age=300',
  });
}
