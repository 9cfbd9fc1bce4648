import { redactDeep } from '../core/redact.js';
import type { AuditStatus } from '../audit/audit-log.js';
import { idleSessions, SessionStore } from './session-store.js';
import { SETTING_DEFAULTS } from '../config/defaults.js';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isInitializeRequest, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { errorObject } from '../core/errors.js';
import type { Runtime } from '../app/runtime.js';
import type { ProxyHub } from '../proxy/hub.js';
import { installFastPath, tryFastHttpCall, type FastPathCaller } from './fast-path.js';
import { linksOf } from './call-chain.js';
import { CallsInFlight, scopeOf } from './calls-in-flight.js';
import { isLoopbackAddress, refusedByOrigin } from './http-guards.js';
import { createToolServer, resolvedHubOf } from './tool-server.js';
import { boundedResponseClass } from './send-guard.js';
import { isModernPost, modernRoute, type ModernRoute } from './modern-http.js';
import { listedViews, listsDefault, type Caller, type Route } from './route-access.js';
import { crossSiteWithoutOrigin, jsonRpcError, listenFailed, readJson, routeOfPath, sendJson, viewPath } from './http-wire.js';
import { accessRules, RouteAuth, type HttpSettings } from './route-auth.js';
import { ServedClients } from './served-clients.js';
import { TaskStore } from './task-store.js';
import { taskSettingsOf } from './task-settings.js';
import type { ToolAccess } from '../tool/context.js';

export type { HttpSettings } from './route-auth.js';

/**
 * Streamable HTTP: `/mcp` (default view), `/view/{name}/mcp`, `/views`, `/views/{name}`, `/health`,
 * `/metrics`. One MCP session per client, bound to the route it started on and the credential that
 * opened it; every session of a view shares that view's hub, and every view shares the upstream
 * connections. Who may use which route: route-access.ts (pure) and route-auth.ts (OAuth).
 */
export interface HttpServeOptions {
  host: string;
  port: number;
  /** Gives each view's hub (made once per view) and each session's context. */
  runtime: Runtime;
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

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  /** Who the session's calls come from: its client's rules and limits, and the audit log's hot-path lines. */
  fastPath: FastPathCaller;
  /** What its credential's client may call now (set again on each request: the config may have changed). */
  access: { current: ToolAccess };
  /** Tells its client that its tools changed (serve.clients was edited: what it may call may have). */
  toolsChanged(): void;
  /** The route's path, and the route. */
  route: string;
  routeInfo: Route;
  /** Who opened it: only that caller finds it, and a reload that takes its credential away ends it. */
  caller: Caller;
  callerId: string;
  /** The session's hub, once its server made it (the shared one, or the client's own). */
  hub: () => ProxyHub | undefined;
  lastSeen: number;
  /** Its POSTs still being answered: a session with a call in flight is not idle. */
  busy: number;
}

export const DEFAULT_MAX_BODY_BYTES = SETTING_DEFAULTS.serve.max_body_bytes;
export const DEFAULT_SESSION_IDLE_MS = SETTING_DEFAULTS.serve.session_idle_ms;
export const DEFAULT_MAX_SESSIONS = SETTING_DEFAULTS.serve.max_sessions;
export const DEFAULT_SEND_TIMEOUT_MS = SETTING_DEFAULTS.serve.send_timeout_ms;
export const DEFAULT_MAX_SEND_BUFFER_BYTES = SETTING_DEFAULTS.serve.max_send_buffer_bytes;

export async function serveHttp(
  options: HttpServeOptions,
): Promise<{ url: string; resource: string; close(): Promise<void>; server: HttpServer; openSessions: () => number }> {
  const { runtime } = options;
  const { logger } = runtime;
  let listenBase = '';
  const auth = new RouteAuth(logger, () => listenBase);
  const served = new ServedClients();
  // The tasks serve hosts for 2026-07-28 clients, across routes; its settings follow the config.
  const taskStore = new TaskStore(() => Date.now(), options.replicaId);
  const taskSettings = () => taskSettingsOf(runtime.live.loaded?.serve.tasks);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Sessions end when their client says so (DELETE), when idle too long, or when the credential
  // that opened them is revoked: each holds a server, listeners and perhaps connections of its own.
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const sessions = new SessionStore<Session>(options.maxSessions ?? DEFAULT_MAX_SESSIONS);
  const endSession = (id: string) =>
    void sessions
      .delete(id)
      ?.transport.close()
      .catch(() => undefined);
  // The 2026-07-28 leg of each route, made on its first modern request, and its answers still open
  // (a subscriptions/listen stream lasts as long as its client wants), ended when their credential is revoked.
  const modernRoutes = new Map<string, ModernRoute>();
  const modernOpen = new Set<{ route: Route; caller: Caller; res: ServerResponse }>();
  // Every call under way, by whose it is (a caller on a route): a revoked credential's are cancelled at once.
  const calls = new CallsInFlight<{ route: Route; caller: Caller }>();
  const sweeper = setInterval(
    () => {
      for (const id of idleSessions(sessions.entries(), Date.now(), idleMs)) endSession(id);
    },
    Math.max(50, Math.min(idleMs / 4, 60_000)),
  );
  sweeper.unref();

  // A reload that takes a credential away (a token removed, a route closed, a view deleted) ends
  // what that credential opened: its sessions, with their streams, and its open 2026 answers.
  let clientsNow: string | undefined;
  const revoke = async () => {
    const s = await options.settings();
    // Rules apply to the next request; the clients are told to list again when serve.clients changed.
    const clients = JSON.stringify(s.clients ?? []);
    if (clientsNow !== undefined && clients !== clientsNow) {
      for (const session of sessions.values()) session.toolsChanged();
      for (const modern of modernRoutes.values()) modern.toolsChanged();
    }
    clientsNow = clients;
    const gone = (route: Route) => (route.kind === 'view' || route.kind === 'view-info') && !s.views.some((v) => v.name === route.view);
    // Its calls under way first (the upstream is told, the client answered where it can), then its sessions and streams.
    const lost: { route: Route; caller: Caller }[] = [];
    for (const whose of calls.owners()) if (gone(whose.route) || !(await auth.stillAllowed(s, whose.route, whose.caller))) lost.push(whose);
    // Each ends with an answer of why where its client still listens: the sessions close once they have (at most 2 s).
    const cancelled = await Promise.race([calls.cancel(lost), new Promise<number>((resolve) => setTimeout(() => resolve(-1), 2000).unref())]);
    if (cancelled !== 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      logger.info(`http: call(s) in flight cancelled: their credential no longer opens their route`);
    }
    for (const [id, session] of [...sessions.entries()]) {
      if (gone(session.routeInfo) || !(await auth.stillAllowed(s, session.routeInfo, session.caller))) endSession(id);
    }
    for (const open of [...modernOpen]) {
      if (gone(open.route) || !(await auth.stillAllowed(s, open.route, open.caller))) open.res.destroy();
    }
  };
  const offReload = runtime.live.reloaded.on((report) => {
    if (report.outcome === 'applied') revoke().catch((error: Error) => logger.warn(`http: checking open sessions after a reload: ${error.message}`));
  });

  const handleMcp = async (req: IncomingMessage, res: ServerResponse, path: string, route: Route, caller: Caller, s: HttpSettings) => {
    const access = served.accessOf(s.clients, caller);
    const view = route.kind === 'view' ? route.view : undefined;
    const sessionId = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readJson(req, maxBody) : undefined;
    // The modern leg answers its own version errors (the spec's -32022 with the supported list).
    // A request of a live session is 2025 traffic by definition (2026 has no sessions), so the hot
    // path pays no classification.
    const ofLiveSession = typeof sessionId === 'string' && sessions.get(sessionId) !== undefined;
    if (req.method === 'POST' && !ofLiveSession && isModernPost(req, body)) {
      let modern = modernRoutes.get(path);
      if (!modern)
        modernRoutes.set(path, (modern = modernRoute(runtime, view, { maxBodyBytes: maxBody, tasks: { store: taskStore, settings: taskSettings } })));
      const open = { route, caller, res };
      modernOpen.add(open);
      res.once('close', () => modernOpen.delete(open));
      return modern.serve(req, res, body, access, scopeOf(calls, { route, caller }));
    }
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return jsonRpcError(res, 400, -32000, `Bad request: unsupported MCP-Protocol-Version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}).`);
    }
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      // A session is its opener's: another route, or another credential, does not find it.
      if (!session || session.route !== path || session.caller.id !== caller.id)
        return jsonRpcError(res, 404, -32001, 'Session not found; start a new one with initialize.');
      session.lastSeen = Date.now();
      session.access.current = access;
      if (req.method === 'POST') {
        // Idle time counts from the end of its last answer, not its start.
        session.busy++;
        res.once('close', () => {
          session.busy--;
          session.lastSeen = Date.now();
        });
      }
      if (req.method === 'POST' && tryFastHttpCall(req, res, body, session.hub(), sendJson, session.fastPath)) return;
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !(isInitializeRequest(body) || (Array.isArray(body) && body.some(isInitializeRequest)))) {
      return jsonRpcError(res, 400, -32000, 'Bad request: no mcp-session-id header; the first request must be initialize.');
    }
    const place = sessions.reserve({ route: path, callerId: caller.id });
    if (!place) {
      const limit = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
      return jsonRpcError(
        res,
        429,
        -32000,
        `Too many sessions: this client already has ${limit} open on ${path} (serve.max_sessions). End unused ones (HTTP DELETE with their mcp-session-id), or wait for idle ones to expire (serve.session_idle_ms).`,
      );
    }
    res.once('close', () => place.release());
    const hasServers = (await runtime.openHub(view, { shared: true })).hasServers;
    const held = { current: access };
    // Whose this session's calls are, on both of its paths.
    const inFlight = scopeOf(calls, { route, caller });
    const server = createToolServer({
      hub: (downstream) => runtime.clientHub(view, downstream),
      runtime,
      hasServers,
      access: () => held.current,
      remote: true,
      inFlight,
    });
    // Who this session's hot-path calls come from: its rules and limits, and the audit log's lines.
    const fastCaller: FastPathCaller = {
      links: linksOf(runtime, () => held.current, inFlight),
      session: () => transport.sessionId,
      client: () => server.getClientVersion(),
    };
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => (options.replicaId ? `${options.replicaId}.${randomUUID()}` : randomUUID()),
      onsessioninitialized: (id) => {
        sessions.add(
          id,
          {
            transport,
            route: path,
            routeInfo: route,
            callerId: caller.id,
            caller,
            hub: resolvedHubOf(server),
            lastSeen: Date.now(),
            busy: 0,
            fastPath: fastCaller,
            access: held,
            toolsChanged: () => void server.sendToolListChanged().catch(() => undefined),
          },
          place,
        );
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    installFastPath(transport, resolvedHubOf(server), fastCaller);
    await transport.handleRequest(req, res, body);
  };

  /** GET /views/NAME: the view and its tools; listing them starts servers only for a caller who may use the view. */
  const describeView = async (req: IncomingMessage, res: ServerResponse, s: HttpSettings, view: string, caller: Caller) => {
    const spec = s.views.find((v) => v.name === view);
    if (!spec) return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `No view named "${view}".` } });
    const head = { name: spec.name, description: spec.description, exposure: spec.exposure, path: viewPath(spec.name) };
    const rules = accessRules(s);
    const onPurpose = rules.open.includes(`/views/${view}`) || rules.open.includes(`/view/${view}/mcp`);
    const hub = await runtime.openHub(view, { shared: true });
    // A request without a credential (an <img> on any web page sends one) must not start processes:
    // it gets what is known already, unless the route was opened on purpose and no other site sent it.
    if (caller.via === 'open' && !(onPurpose && !crossSiteWithoutOrigin(req))) {
      const known = hub.knownTools();
      return sendJson(res, 200, {
        ...head,
        tools: known.tools.map((t) => t.tool),
        complete: known.unlisted.length === 0,
        ...(known.unlisted.length
          ? {
              not_started: known.unlisted,
              note: 'Servers are started only for a request with a credential, or on a route opened on purpose (serve.open_routes).',
            }
          : {}),
      });
    }
    // A named client sees the tools it may call, as in its tools/list.
    return sendJson(res, 200, { ...head, tools: await hub.list(served.accessOf(s.clients, caller)), complete: true });
  };

  const loopbackBound = isLoopbackAddress(options.host);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const s = await options.settings();
    const refused = refusedByOrigin({ host: req.headers.host, origin: req.headers.origin }, { loopbackBound, allowedOrigins: s.allowedOrigins ?? [] });
    if (refused) return jsonRpcError(res, 403, -32000, `Forbidden: ${refused}.`);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    let route: Route | undefined;
    try {
      route = routeOfPath(path);
    } catch {
      return sendJson(res, 400, { error: { code: 'INVALID_INPUT', message: `The path ${path} has a malformed %-escape.` } });
    }
    if (s.oauth && path.startsWith('/.well-known/oauth-protected-resource')) return oauthMetadata(res, req, s, path);
    if (!route || (route.kind === 'metrics' && !options.metrics)) {
      return sendJson(res, 404, {
        error: { code: 'NOT_FOUND', message: `Nothing at ${path}. Routes: /mcp, /view/{name}/mcp, /views, /views/{name}, /health, /metrics.` },
      });
    }
    const decided = await auth.authorize(s, req, route);
    if (route.kind === 'health') {
      const upstreams = runtime.upstreamStatus();
      const audit = options.audit?.();
      // An audit log that cannot be written is a fault too: calls go on, their record does not.
      const healthy = upstreams.every((u) => u.state === 'ready' || u.state === 'idle') && audit?.ok !== false;
      const status = healthy ? 'ok' : 'degraded';
      const config = runtime.configStatus();
      // The bare status is for anyone; what is served and how the config reloaded (files, problems)
      // only for those who may use the server. Masked whole: it quotes servers' stderr and the config's problems.
      return sendJson(res, 200, redactDeep(decided.ok ? { status, upstreams, config, ...(audit ? { audit } : {}) } : { status }));
    }
    if (!decided.ok) return sendJson(res, decided.status, decided.body, decided.headers);
    const { caller } = decided;
    if (route.kind === 'mcp') return handleMcp(req, res, path, route, caller, s);
    if (route.kind === 'view') {
      if (!s.views.some((v) => v.name === route.view)) {
        // A view removed from the config: its sessions end with it.
        for (const [id, session] of [...sessions.entries()]) if (session.route === path) endSession(id);
        return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `No view named "${route.view}".` } });
      }
      return handleMcp(req, res, path, route, caller, s);
    }
    if (req.method !== 'GET') return sendJson(res, 405, { error: { code: 'INVALID_INPUT', message: `${req.method} is not allowed on ${path}.` } });
    if (route.kind === 'metrics') {
      const { contentType, body } = await options.metrics!();
      res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
      return res.end(body);
    }
    if (route.kind === 'views') {
      const rules = accessRules(s);
      const views = listedViews(rules, s.views, caller);
      return sendJson(res, 200, {
        // The default route only to a caller that may open it.
        routes: listsDefault(rules, caller) ? { default: '/mcp' } : {},
        views: views.map(({ name, description, exposure }) => ({ name, description, exposure, path: viewPath(name) })),
      });
    }
    return describeView(req, res, s, route.view, caller);
  };

  /** Protected resource metadata (RFC 9728): public by design, what a client reads to learn where to get a token. */
  const oauthMetadata = async (res: ServerResponse, req: IncomingMessage, s: HttpSettings, path: string) => {
    const oauth = (await auth.oauthOf(s))!;
    const described = oauth.module.routeOfMetadataPath(path);
    const viewName = s.views.find((v) => viewPath(v.name) === described)?.name;
    if (!described || !(described === '/' || described === '/mcp' || viewName !== undefined) || req.method !== 'GET') {
      return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `No protected resource metadata at ${path}.` } });
    }
    // The server as a whole names every scope that opens a part of it.
    const scopes =
      described === '/'
        ? [...new Set([...(s.oauth!.scopes ?? []), ...s.views.flatMap((v) => v.scopes ?? [])])]
        : auth.scopesOf(s, viewName !== undefined ? { kind: 'view', view: viewName } : { kind: 'mcp' });
    return sendJson(res, 200, oauth.module.resourceMetadata({ issuer: s.oauth!.issuer, resource: oauth.resourceBase }, described, scopes), {
      'cache-control': 'max-age=300',
    });
  };

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
  clientsNow = JSON.stringify(atStart.clients ?? []);
  if (atStart.oauth) await auth.oauthOf(atStart);
  return {
    server,
    openSessions: () => sessions.size,
    resource: atStart.oauth?.resource?.replace(/\/+$/, '') || listenBase,
    url: `http://${host}:${address.port}`,
    async close() {
      clearInterval(sweeper);
      offReload();
      await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()));
      taskStore.close();
      await Promise.allSettled([...modernRoutes.values()].map((m) => m.close()));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
