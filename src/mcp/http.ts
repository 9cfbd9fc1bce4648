import { redactDeep } from '../core/redact.js';
import { idleSessions, sessionToEvict } from './session-eviction.js';
import { SETTING_DEFAULTS } from '../config/defaults.js';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isInitializeRequest, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { errorObject, ToolError } from '../core/errors.js';
import type { Runtime } from '../app/runtime.js';
import type { ProxyHub } from '../proxy/hub.js';
import type { AccessTokenVerifier, ResourceAuthSettings } from '../auth/resource-server.js';
import { installFastPath, tryFastHttpCall, type FastPathCaller } from './fast-path.js';
import { bearer, isLoopbackAddress, refusedByOrigin, sameSecret } from './http-guards.js';
import { createToolServer } from './tool-server.js';
import { boundedResponseClass } from './send-guard.js';
import { isModernPost, modernRoute, type ModernRoute } from './modern-http.js';

/**
 * Streamable HTTP: `/mcp` (default view), `/view/{name}/mcp`, `/views`, `/views/{name}`, `/health`.
 * One MCP session per client, bound to the route it started on; every session of a view shares
 * that view's hub, and every view shares the upstream connections.
 */
/** What decides who may use which route: read for every request, so a reloaded config applies to the next one. */
export interface HttpSettings {
  /** Required as `Authorization: Bearer` on every route (a view's own tokens also open that view). */
  token?: string;
  /** The config's views. */
  views: readonly { name: string; description?: string; exposure: string; tokens?: string[]; scopes?: string[] }[];
  /** serve.auth: access tokens from this authorization server open the routes (beside the static tokens). */
  oauth?: ResourceAuthSettings & { /** Public base URL (serve.auth.resource); default: where it listens. */ resource?: string };
  /** Origins allowed besides loopback ones (serve.allowed_origins, --allow-origin). */
  allowedOrigins?: readonly string[];
  /** GET /metrics without credentials (serve.metrics_public). */
  metricsPublic?: boolean;
}

export interface HttpServeOptions {
  host: string;
  port: number;
  /** Gives each view's hub (made once per view) and each session's context. */
  runtime: Runtime;
  /** The settings now (serve: from the current config and the flags). */
  settings: () => Promise<HttpSettings>;
  /** GET /metrics: the Prometheus text (audit/metrics.ts). */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** Largest request body, in bytes (serve.max_body_bytes). */
  maxBodyBytes?: number;
  /** A session unused this long is ended (serve.session_idle_ms; default 30 minutes). */
  sessionIdleMs?: number;
  /** At most this many sessions; a new one ends the least recently used (serve.max_sessions; default 1000). */
  maxSessions?: number;
  /** A response whose client takes nothing this long is cut (serve.send_timeout_ms; send-guard.ts). */
  sendTimeoutMs?: number;
  /** A response holding more than this unsent when more is written is cut (serve.max_send_buffer_bytes). */
  maxSendBufferBytes?: number;
}

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  /** Who the session's calls come from, for the audit log's hot-path lines. */
  caller?: FastPathCaller;
  route: string;
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

/** Sends `body` as JSON; the bytes sent (the audit log counts a hot-path result's from them). */
function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number {
  const text = JSON.stringify(body);
  const bytes = Buffer.byteLength(text);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes, ...headers });
  res.end(text);
  return bytes;
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** Plain listeners, not `for await`: the async iterator cost ~0.1 ms per request here. */
async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes) throw Object.assign(new Error(`request body over ${maxBytes} bytes (serve.max_body_bytes)`), { status: 413 });
  await new Promise<void>((resolve, reject) => {
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        reject(Object.assign(new Error(`request body over ${maxBytes} bytes (serve.max_body_bytes)`), { status: 413 }));
      } else chunks.push(chunk);
    });
    req.once('end', resolve);
    req.once('error', reject);
  });
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw Object.assign(new Error('request body is not valid JSON'), { status: 400, rpc: -32700 });
  }
}

/** Why listening failed, in words that say what to do (the port is taken, the address is not ours, ...). */
function listenFailed(error: NodeJS.ErrnoException, host: string, port: number): ToolError {
  const where = `${host}:${port}`;
  const reason =
    error.code === 'EADDRINUSE'
      ? `port ${port} on ${host} is already in use`
      : error.code === 'EACCES'
        ? `permission denied to listen on ${where} (ports below 1024 need privileges)`
        : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND'
          ? `${host} is not an address of this machine`
          : error.message;
  return new ToolError('LISTEN_FAILED', `Cannot serve HTTP on ${where}: ${reason}.`, {
    details: { host, port, errno: error.code },
    hint: error.code === 'EADDRINUSE' ? 'Choose another --port (0 picks a free one), or stop what holds it.' : 'Choose another --host or --port.',
  });
}

export async function serveHttp(
  options: HttpServeOptions,
): Promise<{ url: string; resource: string; close(): Promise<void>; server: HttpServer; openSessions: () => number }> {
  const sessions = new Map<string, Session>();
  const { runtime } = options;
  const { logger } = runtime;

  /** Whether serve.token or the view's `tokens` open the route (with neither, and no serve.auth, every request does). */
  const staticTokenOpens = (s: HttpSettings, given: string | undefined, view: string | undefined): boolean => {
    const tokens = [s.token, ...(view ? (s.views.find((v) => v.name === view)?.tokens ?? []) : [])].filter((t): t is string => t !== undefined);
    if (tokens.length === 0) return !s.oauth;
    return given !== undefined && tokens.some((t) => sameSecret(given, t));
  };

  // serve.auth: the base URL tokens are issued for is where it listens unless the config says
  // (known once listening: port 0 picks one). The verifier is made anew when serve.auth changes.
  let listenBase = '';
  let verifying: { key: string; verifier: AccessTokenVerifier; module: typeof import('../auth/resource-server.js') } | undefined;
  const oauthOf = async (s: HttpSettings) => {
    if (!s.oauth) return undefined;
    const key = JSON.stringify(s.oauth);
    if (verifying?.key !== key) {
      const module = await import('../auth/resource-server.js');
      const verifier = new module.AccessTokenVerifier(s.oauth);
      // A wrong issuer shows at once, in the log; tokens are still checked (and the metadata fetched again) on use.
      verifier.warmUp().catch((error: Error) => logger.warn(`serve.auth: ${error.message}`));
      verifying = { key, verifier, module };
    }
    return { ...verifying, resourceBase: s.oauth.resource?.replace(/\/+$/, '') || listenBase };
  };
  const routeScopes = (s: HttpSettings, view: string | undefined): readonly string[] =>
    view ? (s.views.find((v) => v.name === view)?.scopes ?? s.oauth?.scopes ?? []) : (s.oauth?.scopes ?? []);
  const routeOf = (view: string | undefined) => (view ? `/view/${encodeURIComponent(view)}/mcp` : '/mcp');

  /** Undefined when the request may go on; else the refusal (401 with a challenge, or 403). */
  const refusal = async (
    s: HttpSettings,
    req: IncomingMessage,
    view: string | undefined,
  ): Promise<{ status: number; body: unknown; headers: Record<string, string> } | undefined> => {
    const given = bearer(req);
    if (staticTokenOpens(s, given, view)) return undefined;
    const oauth = await oauthOf(s);
    if (!oauth)
      return { status: 401, body: { error: { code: 'AUTH_FAILED', message: 'Missing or wrong bearer token.' } }, headers: { 'www-authenticate': 'Bearer' } };
    const { verifier, module: m, resourceBase } = oauth;
    const route = routeOf(view);
    const scopes = routeScopes(s, view);
    const metadata = m.metadataUrl(resourceBase, route);
    const refuse = (status: number, message: string, challenge: Parameters<typeof m.bearerChallenge>[0]) => ({
      status,
      body: { error: { code: 'AUTH_FAILED', message } },
      headers: { 'www-authenticate': m.bearerChallenge(challenge) },
    });
    if (!given) return refuse(401, 'This server needs an OAuth access token (see WWW-Authenticate for where to get one).', { metadataUrl: metadata, scopes });
    const check = await verifier.verify(given, [m.resourceOf(resourceBase, route), resourceBase]);
    if (!check.ok)
      return refuse(401, `The access token was refused: ${check.reason}.`, {
        metadataUrl: metadata,
        scopes,
        error: 'invalid_token',
        description: check.reason,
      });
    if (!m.opens(check.scopes, scopes)) {
      return refuse(403, `The access token does not grant a scope that opens ${route} (one of: ${scopes.join(', ')}).`, {
        metadataUrl: metadata,
        scopes,
        error: 'insufficient_scope',
        description: `needs one of: ${scopes.join(' ')}`,
      });
    }
    return undefined;
  };
  const allowed = async (s: HttpSettings, req: IncomingMessage, view: string | undefined): Promise<boolean> => (await refusal(s, req, view)) === undefined;

  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Sessions end when their client says so (DELETE), when idle too long, or to make room: each
  // holds a server, listeners and perhaps connections of its own, which must not pile up.
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const endSession = (id: string) => {
    const session = sessions.get(id);
    sessions.delete(id);
    void session?.transport.close().catch(() => undefined);
  };
  const endLeastRecent = () => {
    const id = sessionToEvict(sessions);
    if (id !== undefined) endSession(id);
  };
  // The 2026-07-28 leg of each route, made on its first modern request.
  const modernRoutes = new Map<string, ModernRoute>();
  const sweeper = setInterval(
    () => {
      for (const id of idleSessions(sessions, Date.now(), idleMs)) endSession(id);
    },
    Math.max(50, Math.min(idleMs / 4, 60_000)),
  );
  sweeper.unref();
  const handleMcp = async (req: IncomingMessage, res: ServerResponse, route: string, view: string | undefined) => {
    const sessionId = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readJson(req, maxBody) : undefined;
    // The modern leg answers its own version errors (the spec's -32022 with the supported list).
    // A request of a live session is 2025 traffic by definition (2026 has no sessions), so the hot
    // path pays no classification.
    const ofLiveSession = typeof sessionId === 'string' && sessions.has(sessionId);
    if (req.method === 'POST' && !ofLiveSession && isModernPost(req, body)) {
      let modern = modernRoutes.get(route);
      if (!modern) modernRoutes.set(route, (modern = modernRoute(runtime, view, { maxBodyBytes: maxBody })));
      return modern.serve(req, res, body);
    }
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return jsonRpcError(res, 400, -32000, `Bad request: unsupported MCP-Protocol-Version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}).`);
    }
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session || session.route !== route) return jsonRpcError(res, 404, -32001, 'Session not found; start a new one with initialize.');
      session.lastSeen = Date.now();
      if (req.method === 'POST') {
        // Idle time counts from the end of its last answer, not its start.
        session.busy++;
        res.once('close', () => {
          session.busy--;
          session.lastSeen = Date.now();
        });
      }
      if (req.method === 'POST' && tryFastHttpCall(req, res, body, session.hub(), sendJson, session.caller)) return;
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !(isInitializeRequest(body) || (Array.isArray(body) && body.some(isInitializeRequest)))) {
      return jsonRpcError(res, 400, -32000, 'Bad request: no mcp-session-id header; the first request must be initialize.');
    }
    const hasServers = (await runtime.openHub(view, { shared: true })).hasServers;
    const server = createToolServer({ hub: (downstream) => runtime.clientHub(view, downstream), runtime, hasServers });
    // Who this session's hot-path calls come from, for the audit log.
    const observer = runtime.observer;
    const caller = observer ? { observer, session: () => transport.sessionId, client: () => server.getClientVersion() } : undefined;
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        if (sessions.size >= maxSessions) endLeastRecent();
        sessions.set(id, { transport, route, hub: server.resolvedHub, lastSeen: Date.now(), busy: 0, ...(caller ? { caller } : {}) });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    installFastPath(transport, server.resolvedHub, caller);
    await transport.handleRequest(req, res, body);
  };

  const loopbackBound = isLoopbackAddress(options.host);
  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const s = await options.settings();
    const refused = refusedByOrigin({ host: req.headers.host, origin: req.headers.origin }, { loopbackBound, allowedOrigins: s.allowedOrigins ?? [] });
    if (refused) return jsonRpcError(res, 403, -32000, `Forbidden: ${refused}.`);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const viewMatch = /^\/views?\/([^/]+)(\/mcp)?$/.exec(path);
    let view: string | undefined;
    try {
      view = viewMatch ? decodeURIComponent(viewMatch[1]!) : undefined;
    } catch {
      return sendJson(res, 400, { error: { code: 'INVALID_INPUT', message: `The path ${path} has a malformed %-escape.` } });
    }
    if (path === '/health') {
      const upstreams = runtime.upstreamStatus();
      const healthy = upstreams.every((u) => u.state === 'ready' || u.state === 'idle');
      const status = healthy ? 'ok' : 'degraded';
      const config = runtime.configStatus();
      // What is served and how the config reloaded (files, problems) is for those who may use the server only.
      // Masked whole: it quotes servers' stderr and the config's problems.
      return sendJson(res, 200, redactDeep((await allowed(s, req, undefined)) ? { status, upstreams, config } : { status }));
    }
    const oauth = s.oauth && path.startsWith('/.well-known/oauth-protected-resource') ? await oauthOf(s) : undefined;
    if (path === '/metrics' && options.metrics) {
      if (req.method !== 'GET') return sendJson(res, 405, { error: { code: 'INVALID_INPUT', message: `${req.method} is not allowed on /metrics.` } });
      const refusedMetrics = s.metricsPublic ? undefined : await refusal(s, req, undefined);
      if (refusedMetrics) return sendJson(res, refusedMetrics.status, refusedMetrics.body, refusedMetrics.headers);
      const { contentType, body } = await options.metrics();
      res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
      return res.end(body);
    }
    if (oauth) {
      // Public by design (RFC 9728): what a client reads to learn where to get a token.
      const described = oauth.module.routeOfMetadataPath(path);
      const viewName = s.views.find((v) => routeOf(v.name) === described)?.name;
      if (!described || !(described === '/' || described === '/mcp' || viewName !== undefined) || req.method !== 'GET') {
        return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `No protected resource metadata at ${path}.` } });
      }
      // The server as a whole names every scope that opens a part of it.
      const scopes = described === '/' ? [...new Set([...(s.oauth!.scopes ?? []), ...s.views.flatMap((v) => v.scopes ?? [])])] : routeScopes(s, viewName);
      return sendJson(res, 200, oauth.module.resourceMetadata({ issuer: s.oauth!.issuer, resource: oauth.resourceBase }, described, scopes), {
        'cache-control': 'max-age=300',
      });
    }
    const denied = await refusal(s, req, path.startsWith('/view/') || path.startsWith('/views/') ? view : undefined);
    if (denied) return sendJson(res, denied.status, denied.body, denied.headers);
    if (path === '/mcp') return handleMcp(req, res, '/mcp', undefined);
    if (viewMatch && viewMatch[2] && path.startsWith('/view/')) {
      if (!s.views.some((v) => v.name === view)) {
        // A view removed from the config: its sessions end with it.
        for (const [id, session] of sessions) if (session.route === path) endSession(id);
        return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `No view named "${view}".` } });
      }
      return handleMcp(req, res, path, view);
    }
    if (req.method !== 'GET') return sendJson(res, 405, { error: { code: 'INVALID_INPUT', message: `${req.method} is not allowed on ${path}.` } });
    if (path === '/views') {
      const views = s.views;
      return sendJson(res, 200, {
        views: views.map(({ name, description, exposure }) => ({ name, description, exposure, path: `/view/${encodeURIComponent(name)}/mcp` })),
      });
    }
    if (viewMatch && !viewMatch[2] && path.startsWith('/views/')) {
      const spec = s.views.find((v) => v.name === view);
      if (!spec) return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `No view named "${view}".` } });
      const tools = await (await runtime.openHub(view, { shared: true })).list();
      return sendJson(res, 200, {
        name: spec.name,
        description: spec.description,
        exposure: spec.exposure,
        path: `/view/${encodeURIComponent(spec.name)}/mcp`,
        tools,
      });
    }
    return sendJson(res, 404, {
      error: { code: 'NOT_FOUND', message: `Nothing at ${path}. Routes: /mcp, /view/{name}/mcp, /views, /views/{name}, /health, /metrics.` },
    });
  };

  // Every response is bounded against clients that do not read (send-guard.ts).
  const ServerResponse = boundedResponseClass({
    sendTimeoutMs: options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS,
    maxBufferedBytes: options.maxSendBufferBytes ?? DEFAULT_MAX_SEND_BUFFER_BYTES,
    onCut: (request, why) => logger.warn(`http: cut the answer to ${request}: ${why}.`),
  });
  const server = createServer({ ServerResponse }, (req, res) => {
    route(req, res).catch((error: Error & { status?: number; rpc?: number }) => {
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
  if (atStart.oauth) await oauthOf(atStart);
  return {
    server,
    openSessions: () => sessions.size,
    resource: atStart.oauth?.resource?.replace(/\/+$/, '') || listenBase,
    url: `http://${host}:${address.port}`,
    async close() {
      clearInterval(sweeper);
      await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()));
      await Promise.allSettled([...modernRoutes.values()].map((m) => m.close()));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
