import type { AuditStatus } from '../audit/audit-log.js';
import { SETTING_DEFAULTS } from '../config/defaults.js';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorObject } from '../core/errors.js';
import type { Runtime } from '../app/runtime.js';
import type { ServeObservers } from './call-chain.js';
import { CallsInFlight, scopeOf } from './calls-in-flight.js';
import { isLoopbackAddress, refusedByOrigin } from './http-guards.js';
import { health, methodAllowed, ROUTES, type HttpParts, type RouteRequest } from './http-routes.js';
import { LegacySessions } from './http-sessions.js';
import { boundedResponseClass } from './send-guard.js';
import { modernRoute, type ModernRoute } from './modern-http.js';
import type { Caller, Route } from './route-access.js';
import { jsonRpcError, listenFailed, routeOfPath, sendJson, viewPath } from './http-wire.js';
import { RouteAuth, type HttpSettings } from './route-auth.js';
import { ServedClients } from './served-clients.js';
import { TaskStore } from './task-store.js';
import { TaskSharing } from './task-sharing.js';
import { RemoteCalls } from './remote-calls.js';
import { callParamsOf } from './wire-calls.js';
import { outcomeOf, roundContext, type Outcome } from './call-round.js';
import { hostedCallRunner } from './modern-http.js';
import type { CallMessage } from '../store/shared-store.js';
import { taskSettingsOf } from './task-settings.js';
import { startFleet } from './fleet.js';
import { isOAuthPath, oauthNotFound } from './oauth-paths.js';
import { followTokenDeadlines } from './token-deadlines.js';

export type { HttpSettings } from './route-auth.js';

/**
 * Streamable HTTP: `/mcp` (default view), `/view/{name}/mcp`, `/views`, `/views/{name}`, `/health`,
 * `/metrics`. The front door (`handle`) checks where a request comes from and who it is, then a
 * route's own handler answers it (./http-routes.ts); 2025 sessions are ./http-sessions.ts, the
 * 2026-07-28 leg of each MCP route ./modern-http.ts. Who may use which route: route-access.ts
 * (pure) and route-auth.ts (OAuth).
 */
export interface HttpServeOptions {
  host: string;
  port: number;
  /** Gives each view's hub (made once per view) and each session's context. */
  runtime: Runtime;
  /** What hears of serve's calls (the audit log, the metrics, tracing). */
  observers?: ServeObservers;
  /** The settings now (serve: from the current config and the flags). */
  settings: () => Promise<HttpSettings>;
  /** GET /metrics: the Prometheus text (audit/metrics.ts). */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** How the audit log stands, when there is one: /health says when it fails. */
  audit?: () => AuditStatus;
  /** Largest request body, in bytes (serve.max_body_bytes). */
  maxBodyBytes?: number;
  /** A session unused this long is ended (serve.session_idle_ms; default 30 minutes). */
  sessionIdleMs?: number;
  /** This replica among several (serve.replica_id): session ids start with "ID.", for a balancer's affinity. */
  replicaId?: string;
  /** At most this many sessions of one caller on one route; past it a new one is refused (serve.max_sessions; default 1000). */
  maxSessions?: number;
  /** A response whose client takes nothing this long is cut (serve.send_timeout_ms; send-guard.ts). */
  sendTimeoutMs?: number;
  /** A response holding more than this unsent when more is written is cut (serve.max_send_buffer_bytes). */
  maxSendBufferBytes?: number;
}

export const DEFAULT_MAX_BODY_BYTES = SETTING_DEFAULTS.serve.max_body_bytes;
export const DEFAULT_SESSION_IDLE_MS = SETTING_DEFAULTS.serve.session_idle_ms;
export const DEFAULT_MAX_SESSIONS = SETTING_DEFAULTS.serve.max_sessions;
export const DEFAULT_SEND_TIMEOUT_MS = SETTING_DEFAULTS.serve.send_timeout_ms;
export const DEFAULT_MAX_SEND_BUFFER_BYTES = SETTING_DEFAULTS.serve.max_send_buffer_bytes;

type Whose = { route: Route; caller: Caller };

export async function serveHttp(
  options: HttpServeOptions,
): Promise<{ url: string; resource: string; close(): Promise<void>; server: HttpServer; openSessions: () => number }> {
  const { runtime } = options;
  const { logger } = runtime;
  let listenBase = '';
  const auth = new RouteAuth(logger, () => listenBase);
  const parts = httpParts(options, auth);
  await parts.sharing?.start();
  await parts.remote?.start();
  const revocations = followRevocations(options, parts, auth);
  const handle = frontDoor(options, parts, auth);

  // Every response is bounded against clients that do not read (send-guard.ts).
  const ServerResponse = boundedResponseClass({
    sendTimeoutMs: options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS,
    maxBufferedBytes: options.maxSendBufferBytes ?? DEFAULT_MAX_SEND_BUFFER_BYTES,
    onCut: (request, why) => logger.warn(`http: cut the answer to ${request}: ${why}.`),
  });
  const server = createServer({ ServerResponse }, (req, res) => {
    handle(req, res).catch((error: Error & { status?: number; rpc?: number }) => {
      logger.warn(`http: ${req.method} ${req.url}: ${error.message}`);
      if (res.headersSent) return res.end();
      if (error.status === 413) res.setHeader('connection', 'close'); // the rest of the body is not read
      if (error.status) return jsonRpcError(res, error.status, error.rpc ?? -32600, error.message);
      const obj = errorObject(error);
      sendJson(res, obj.code === 'NOT_FOUND' ? 404 : 500, { error: obj });
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenFailed(error, options.host, options.port)));
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  listenBase = `http://${host}:${address.port}`;
  const atStart = await options.settings();
  revocations.started(atStart);
  if (atStart.oauth) await auth.oauthOf(atStart);
  return {
    server,
    openSessions: () => parts.sessions.size,
    resource: atStart.oauth?.resource?.replace(/\/+$/, '') || listenBase,
    url: `http://${host}:${address.port}`,
    async close() {
      revocations.stop();
      await parts.sessions.close();
      parts.close();
      await Promise.allSettled([...parts.modernRoutes.values()].map((m) => m.close()));
      await parts.fleet.close(); // before the store: its record goes with it
      await options.runtime.serving.store?.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** What the routes share: the sessions, the modern legs, the calls in flight, the tasks. */
function httpParts(
  options: HttpServeOptions,
  auth: RouteAuth,
): HttpParts & { modernRoutes: Map<string, ModernRoute>; calls: CallsInFlight<Whose>; sharing?: TaskSharing; remote?: RemoteCalls; close(): void } {
  const { runtime } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // The tasks serve hosts for 2026-07-28 clients, across routes; its settings follow the config.
  const served = new ServedClients(undefined, options.runtime.serving.store);
  const taskStore = new TaskStore(() => Date.now(), options.replicaId);
  const sharing = options.runtime.serving.store ? new TaskSharing(options.runtime.serving.store, taskStore, runtime.logger) : undefined;
  const tasks = { store: taskStore, settings: () => taskSettingsOf(runtime.configs.live.loaded?.serve.tasks), ...(sharing ? { sharing } : {}) };
  const modernRoutes = new Map<string, ModernRoute>();
  const calls = new CallsInFlight<Whose>();
  const remote = options.runtime.serving.store
    ? new RemoteCalls(options.runtime.serving.store, (call) => runPassedCall(options, served, calls, call), runtime.logger)
    : undefined;
  return {
    runtime,
    auth,
    served,
    sessions: new LegacySessions({
      runtime,
      ...(options.observers ? { observers: options.observers } : {}),
      maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
      idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
      ...(options.replicaId ? { replicaId: options.replicaId } : {}),
    }),
    modern(path, view) {
      let route = modernRoutes.get(path);
      if (!route)
        modernRoutes.set(
          path,
          (route = modernRoute(runtime, view, {
            maxBodyBytes,
            tasks,
            ...(options.observers ? { observers: options.observers } : {}),
            ...(remote ? { remote } : {}),
          })),
        );
      return route;
    },
    modernOpen: new Set(),
    inFlight: (route, caller) => scopeOf(calls, { route, caller }),
    fleet: startFleet({ runtime, store: options.runtime.serving.store, replicaId: options.replicaId, inFlight: () => calls.count() }),
    maxBodyBytes,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.audit ? { audit: options.audit } : {}),
    ...(options.runtime.serving.store ? { store: () => options.runtime.serving.store!.status() } : {}),
    modernRoutes,
    calls,
    ...(sharing ? { sharing } : {}),
    ...(remote ? { remote } : {}),
    close: () => tasks.store.close(),
  };
}

/**
 * The front door: where the request comes from (Origin, Host), which route it names, and who the
 * caller is; then the route's handler. /health answers everyone (its detail only to a caller let in).
 */
function frontDoor(options: HttpServeOptions, parts: HttpParts, auth: RouteAuth) {
  const loopbackBound = isLoopbackAddress(options.host);
  return async (req: IncomingMessage, res: ServerResponse): Promise<unknown> => {
    const s = await options.settings();
    const refused = refusedByOrigin({ host: req.headers.host, origin: req.headers.origin }, { loopbackBound, allowedOrigins: s.allowedOrigins ?? [] });
    if (refused) return jsonRpcError(res, 403, -32000, `Forbidden: ${refused}.`);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') || '/';
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

/**
 * After each applied reload: the clients are told to list again when serve.clients changed, and
 * what a credential the reload took away (a token removed, a route closed, a view deleted) had
 * open ends: its calls in flight first (the upstream is told, the client answered where it still
 * listens, at most 2 s), then its sessions with their streams, and its open 2026 answers.
 */
function followRevocations(options: HttpServeOptions, parts: ReturnType<typeof httpParts>, auth: RouteAuth) {
  const { logger } = options.runtime;
  let clientsNow: string | undefined;
  // A token's expiry or a grace's end takes its sessions away as a reload that removes it would.
  const deadlines = followTokenDeadlines(() => void revoke().catch((error: Error) => logger.warn(`http: ending expired tokens' sessions: ${error.message}`)));
  const revoke = async () => {
    const s = await options.settings();
    deadlines.follow(s.clients);
    // Rules apply to the next request.
    const clients = JSON.stringify(s.clients ?? []);
    if (clientsNow !== undefined && clients !== clientsNow) {
      for (const session of parts.sessions.values()) session.toolsChanged();
      for (const modern of parts.modernRoutes.values()) modern.toolsChanged();
    }
    clientsNow = clients;
    const gone = (route: Route) => (route.kind === 'view' || route.kind === 'view-info') && !s.views.some((v) => v.name === route.view);
    const lost = async (route: Route, caller: Caller) => gone(route) || !(await auth.stillAllowed(s, route, caller));
    const calls: Whose[] = [];
    for (const whose of parts.calls.owners()) if (await lost(whose.route, whose.caller)) calls.push(whose);
    const cancelled = await Promise.race([parts.calls.cancel(calls), new Promise<number>((resolve) => setTimeout(() => resolve(-1), 2000).unref())]);
    if (cancelled !== 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      logger.info('http: call(s) in flight cancelled: their credential no longer opens their route');
    }
    await parts.sessions.endWhere((session) => lost(session.routeInfo, session.caller));
    for (const open of [...parts.modernOpen]) if (await lost(open.route, open.caller)) open.res.destroy();
  };
  const off = options.runtime.configs.live.reloaded.on((report) => {
    if (report.outcome === 'applied') revoke().catch((error: Error) => logger.warn(`http: checking open sessions after a reload: ${error.message}`));
  });
  return {
    started: (s: HttpSettings) => void ((clientsNow = JSON.stringify(s.clients ?? [])), deadlines.follow(s.clients)),
    stop: () => (off(), deadlines.stop()),
  };
}

/**
 * A call another replica passed here over serve.store (./remote-calls.ts): run on its route as the
 * caller that replica let in, with this process' settings, rules and limits.
 */
async function runPassedCall(
  options: HttpServeOptions,
  served: ServedClients,
  calls: CallsInFlight<Whose>,
  call: Extract<CallMessage, { kind: 'call' }>,
): Promise<Outcome> {
  const route = routeOfPath(call.path);
  const given = (call.body.params ?? {}) as Record<string, unknown>;
  const params = callParamsOf(given);
  if (!route || (route.kind !== 'mcp' && route.kind !== 'view') || !params)
    return { error: { code: -32602, message: 'Invalid params: not a tools/call of an MCP route.' } };
  const view = route.kind === 'view' ? route.view : undefined;
  const caller = { id: call.caller.id, via: call.caller.via as Caller['via'], ...(call.caller.client !== undefined ? { client: call.caller.client } : {}) };
  const access = served.accessOf((await options.settings()).clients, caller);
  const round = { ...params, inputResponses: given.inputResponses, requestState: given.requestState };
  const run = hostedCallRunner(options.runtime, view, options.observers);
  return outcomeOf(
    run(round, roundContext(call.body.id, round, call.headers, new AbortController().signal), access, scopeOf(calls, { route, caller }), call.headers),
  );
}
