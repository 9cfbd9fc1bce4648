import type { StoreStatus } from '../../store/shared-store.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditStatus } from '../../audit/audit-log.js';
import type { Runtime } from '../../app/runtime.js';
import { redactDeep } from '../../core/redact.js';
import type { InFlightScope } from '../pipeline/calls-in-flight.js';
import { deepModernAnswer } from '../pipeline/deep-requests.js';
import { crossSiteWithoutOrigin, readJson, sendJson, viewPath } from './http-wire.js';
import type { LegacySessions } from './http-sessions.js';
import { isModernPost, type ModernRoute } from './modern-http.js';
import { listedViews, listsDefault, type Caller, type Route } from '../access/route-access.js';
import { accessRules, type HttpSettings, type RouteAuth } from '../access/route-auth.js';
import type { ServedClients } from '../access/served-clients.js';
import type { Fleet } from './fleet.js';
import { localProblems, seesFleet } from './health-view.js';

/**
 * The routes of `serve --http`, one small handler each, in a table by route kind. The front door
 * (./front-door.ts) has decided by then who the caller is (../access/route-auth.ts); every handler but /health's
 * is reached only by a caller the route lets in.
 */
export interface HttpParts {
  runtime: Runtime;
  auth: RouteAuth;
  served: ServedClients;
  sessions: LegacySessions;
  /** The 2026-07-28 leg of a route (made on its first modern request), and the answers of it still open. */
  modern(path: string, view: string | undefined): ModernRoute;
  modernOpen: Set<{ route: Route; caller: Caller; res: ServerResponse }>;
  /** Where a caller's calls on a route, made by the request answered on `res`, are registered (../pipeline/calls-in-flight.ts, ./revocations.ts). */
  inFlight(route: Route, caller: Caller, res: ServerResponse): InFlightScope;
  maxBodyBytes: number;
  metrics?: () => Promise<{ contentType: string; body: string }>;
  audit?: () => AuditStatus;
  /** serve.store, when set: how it stands. */
  store?: () => StoreStatus;
  /** This replica among the others (the admin's /health). */
  fleet: Fleet;
}

/** A request at the door: where it goes, the settings it is judged by, and who it is (when let in). */
export interface RouteRequest<R extends Route = Route> {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  route: R;
  settings: HttpSettings;
  caller: Caller;
}

type Handler<K extends Route['kind']> = (parts: HttpParts, request: RouteRequest<Extract<Route, { kind: K }>>) => unknown;

/**
 * GET /health: the bare status for anyone; what is served, how the config reloaded and why it is
 * degraded only for a caller let in (masked whole); the fleet (every replica, and whether they
 * serve one config) only for the admin (./health-view.ts seesFleet).
 */
export async function health(parts: HttpParts, res: ServerResponse, detail: boolean, fleet = false): Promise<void> {
  const upstreams = parts.runtime.serving.upstreamStatus();
  const audit = parts.audit?.();
  const store = parts.store?.();
  // An audit log that cannot be written is a fault too: calls go on, their record does not. A
  // store that does not answer is one: limited calls are refused meanwhile.
  const reasons = localProblems({ upstreams, audit, store });
  const replicas = fleet ? await parts.fleet.view() : undefined;
  reasons.push(...(replicas?.reasons ?? []));
  const status = reasons.length ? 'degraded' : 'ok';
  const config = parts.runtime.configs.status();
  const shown = { status, ...(reasons.length ? { reasons } : {}), upstreams, config, ...(audit ? { audit } : {}), ...(store ? { store } : {}) };
  sendJson(res, 200, redactDeep(detail ? { ...shown, ...(replicas ? { replicas: replicas.replicas } : {}) } : { status }));
}

/** An MCP route (/mcp, /view/NAME/mcp): a 2026-07-28 request to its modern leg, anything else to the 2025 sessions. */
async function mcp(parts: HttpParts, { req, res, path, route, settings, caller }: RouteRequest<Extract<Route, { kind: 'mcp' | 'view' }>>): Promise<unknown> {
  const access = parts.served.accessOf(settings.clients, caller);
  const body = req.method === 'POST' ? await readJson(req, parts.maxBodyBytes) : undefined;
  const inFlight = parts.inFlight(route, caller, res);
  // A request of a live session is 2025 traffic by definition (2026 has no sessions), so the hot
  // path pays no classification; the modern leg answers its own version errors (-32022).
  if (req.method === 'POST' && !parts.sessions.has(req.headers['mcp-session-id']) && isModernPost(req, body)) {
    const deep = deepModernAnswer(body);
    if (deep) return sendJson(res, deep.status, deep.answer);
    const open = { route, caller, res };
    parts.modernOpen.add(open);
    res.once('close', () => parts.modernOpen.delete(open));
    return parts.modern(path, route.kind === 'view' ? route.view : undefined).serve(req, res, body, access, inFlight);
  }
  return parts.sessions.serve({ req, res, body, path, route, caller, access, inFlight });
}

/** /view/NAME/mcp: an MCP route while the view exists; a view removed from the config ends its sessions. */
const view: Handler<'view'> = async (parts, request) => {
  if (!request.settings.views.some((v) => v.name === request.route.view)) {
    await parts.sessions.endWhere((session) => session.route === request.path);
    return sendJson(request.res, 404, { error: { code: 'NOT_FOUND', message: `No view named "${request.route.view}".` } });
  }
  return mcp(parts, request);
};

/** GET /views: the views the caller may open, and the default route when it may open that. */
const views: Handler<'views'> = (_parts, { res, settings, caller }) => {
  const rules = accessRules(settings);
  const listed = listedViews(rules, settings.views, caller);
  sendJson(res, 200, {
    routes: listsDefault(rules, caller) ? { default: '/mcp' } : {},
    views: listed.map(({ name, description, exposure }) => ({ name, description, exposure, path: viewPath(name) })),
  });
};

/** GET /views/NAME: the view and its tools; listing them starts servers only for a caller who may use the view. */
const viewInfo: Handler<'view-info'> = async (parts, { req, res, route, settings, caller }) => {
  const spec = settings.views.find((v) => v.name === route.view);
  if (!spec) return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `No view named "${route.view}".` } });
  const head = { name: spec.name, description: spec.description, exposure: spec.exposure, path: viewPath(spec.name) };
  const rules = accessRules(settings);
  const onPurpose = rules.open.includes(`/views/${route.view}`) || rules.open.includes(`/view/${route.view}/mcp`);
  const hub = await parts.runtime.serving.openHub(route.view, { shared: true });
  // A request without a credential (an <img> on any web page sends one) must not start processes:
  // it gets what is known already, unless the route was opened on purpose and no other site sent it.
  if (caller.via === 'open' && !(onPurpose && !crossSiteWithoutOrigin(req))) {
    const known = hub.catalog.knownTools();
    const partial = known.unlisted.length
      ? { not_started: known.unlisted, note: 'Servers are started only for a request with a credential, or on a route opened on purpose (serve.open_routes).' }
      : {};
    return sendJson(res, 200, { ...head, tools: known.tools.map((t) => t.tool), complete: known.unlisted.length === 0, ...partial });
  }
  // A named client sees the tools it may call, as in its tools/list.
  return sendJson(res, 200, { ...head, tools: await hub.catalog.list(parts.served.accessOf(settings.clients, caller)), complete: true });
};

/** GET /metrics: the Prometheus text. */
const metrics: Handler<'metrics'> = async (parts, { res }) => {
  const { contentType, body } = await parts.metrics!();
  res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

/** The handler of each kind of route, for a caller the route let in. */
export const ROUTES: { [K in Route['kind']]: Handler<K> } = {
  mcp,
  view,
  views,
  'view-info': viewInfo,
  health: (parts, { res, settings, caller }) => health(parts, res, true, seesFleet(accessRules(settings), caller)),
  metrics,
};

/** Only the MCP routes (and /health, which answers whatever asks) take more than GET. */
export function methodAllowed(route: Route, method: string | undefined): boolean {
  return route.kind === 'mcp' || route.kind === 'view' || route.kind === 'health' || method === 'GET';
}
