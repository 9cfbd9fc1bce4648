import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  createMcpHandler,
  type AuthInfo,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import type { ToolAccess } from '../../tool/context.js';
import { callAnswer, hostMayTake, TASKS_EXTENSION, TaskHost, type CallRunner, type HostAnswer, type TaskSettings } from '../tasks/task-host.js';
import { forwardable } from '../pipeline/call-round.js';
import type { TaskStore } from '../tasks/task-store.js';
import type { TaskSharing } from '../tasks/task-sharing.js';
import type { RemoteCalls } from '../tasks/remote-calls.js';
import type { ServeObservers } from '../pipeline/call-chain.js';
import type { InFlightScope } from '../pipeline/calls-in-flight.js';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { parsedBodyHandler } from './parsed-body-handler.js';
import { firstHeader } from './http-wire.js';
import { claimsModernEnvelope } from './envelope-claim.js';
import type { Runtime } from '../../app/runtime.js';
import { Dispatcher } from '../pipeline/dispatcher.js';
import type { Downstream, RequestContext } from '../pipeline/request-context.js';
import { protocolError } from '../pipeline/protocol-errors.js';
import { sdkServer } from '../pipeline/sdk-server.js';
import { HEADER_MISMATCH, paramHeaderDeclarations, paramHeaderMismatch } from '../../proxy/eras/param-headers.js';
import type { ProxyHub } from '../../proxy/hub.js';
import { settleAtMost } from '../../core/pool.js';
import { reach } from '../../proxy/reach.js';

/**
 * The 2026-07-28 ("modern") leg of `serve --http`, one per route. A modern request carries its
 * version, capabilities and client info in `_meta`, so it is answered by a fresh server from the
 * same factory as a legacy session's and nothing is kept between requests: replicas behind a
 * round-robin balancer answer it alike. The SDK's handler owns the era rules (`server/discover`,
 * the -32020..-32022 error ladder, caching hints, `subscriptions/listen`); the view's hub is the
 * shared one, and its change events are published to every open listen stream.
 */
export interface ModernRoute {
  /** Answers one request of a caller with this access (its identity, rules and limits); its calls are registered in `inFlight`. */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown, access: ToolAccess, inFlight?: InFlightScope): Promise<void>;
  /** Tells every open listen stream that the tools changed (serve.clients was edited). */
  toolsChanged(): void;
  close(): Promise<void>;
}

/**
 * Whether a POST belongs to the modern leg: the SDK's own classification, so the branch never
 * disagrees with it. A body that claims the envelope is modern by the SDK's rules
 * (./envelope-claim.ts): its handler classifies it then, and it is not classified twice.
 */
export function isModernPost(req: IncomingMessage, body: unknown): boolean {
  if (claimsModernEnvelope(body)) return true;
  return (
    classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: firstHeader(req.headers['mcp-protocol-version']),
      mcpMethodHeader: firstHeader(req.headers['mcp-method']),
      mcpNameHeader: firstHeader(req.headers['mcp-name']),
      body,
    }).kind !== 'legacy'
  );
}

/** The resource URIs a subscriptions/listen request asks to hear about. */
export function listenedResources(body: unknown): string[] {
  const m = body as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | undefined;
  if (m?.method !== 'subscriptions/listen') return [];
  const uris = m.params?.notifications?.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : [];
}

/**
 * The -32020 answer to a tools/call whose Mcp-Param-* headers disagree with its arguments, judged
 * by the tool as this view publishes it (proxy/eras/param-headers.ts); undefined to let the call through.
 * Only a request whose Mcp-Method and Mcp-Name headers agree with its body is looked at: the SDK
 * refuses the others first, with their own error, as a server checks the standard headers first.
 */
async function paramHeaderRefusal(headers: IncomingHttpHeaders, body: unknown, hub: () => Promise<ProxyHub>) {
  const m = body as { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } } | undefined;
  if (!m || typeof m !== 'object' || Array.isArray(m) || m.method !== 'tools/call' || typeof m.params?.name !== 'string') return undefined;
  if (firstHeader(headers['mcp-method']) !== 'tools/call' || firstHeader(headers['mcp-name'])?.trim() !== m.params.name) return undefined;
  const { entry } = await (await hub()).catalog.lookup(m.params.name);
  // mcpkit's own tools mark no parameter: only a published MCP tool definition can.
  const declarations = entry && entry.kind !== 'local' ? paramHeaderDeclarations(entry.tool.inputSchema) : undefined;
  if (!declarations?.length) return undefined;
  const mismatch = paramHeaderMismatch(declarations, m.params.arguments, (name) => firstHeader(headers[name]));
  if (!mismatch) return undefined;
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;
  return {
    jsonrpc: '2.0' as const,
    id,
    error: { code: HEADER_MISMATCH, message: mismatch.message, data: { mismatch: { header: mismatch.header, body: mismatch.body } } },
  };
}

/** Most resources one subscriptions/listen may name; a request naming more is refused (-32602). */
export const MAX_LISTEN_URIS = 256;
/** Subscriptions a listen stream makes upstream at once. */
const SUBSCRIBE_CONCURRENCY = 8;

type JsonRpcRefusal = { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string; data?: unknown } };

function requestId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function tooManyResources(body: unknown, count: number): JsonRpcRefusal {
  return {
    jsonrpc: '2.0',
    id: requestId(body),
    error: {
      code: -32602,
      message: `subscriptions/listen names ${count} resources; at most ${MAX_LISTEN_URIS} per request. Open more than one listen stream, or subscribe to fewer resources.`,
      data: { max: MAX_LISTEN_URIS, given: count },
    },
  };
}

/** -32602 for a listen that names resources the view does not show, or the client's rules do not allow (resources/subscribe says the same of one). */
function unknownResources(body: unknown, uris: readonly string[]): JsonRpcRefusal {
  return {
    jsonrpc: '2.0',
    id: requestId(body),
    error: {
      code: -32602,
      message: `subscriptions/listen names ${uris.length === 1 ? 'a resource' : 'resources'} this view does not show: ${uris.slice(0, 5).join(', ')}${uris.length > 5 ? ', ...' : ''}. List them with resources/list and resources/templates/list.`,
      data: { uris: uris.slice(0, 20) },
    },
  };
}

/** Answers a request refused before the SDK sees it, with HTTP 400 as a server's own refusal. */
function refuse(res: ServerResponse, answer: JsonRpcRefusal): void {
  const text = JSON.stringify(answer);
  res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

/**
 * The client of a task's round, known by the request's envelope alone: a 2026-07-28 client is not
 * asked things in the middle of a call (it gets input_required), and a task has no stream to tell it on.
 */
function envelopeClient(ctx: RequestContext): Downstream {
  return {
    capabilities: () => ctx.envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined,
    client: () => ctx.envelope?.[CLIENT_INFO_META_KEY] as { name?: unknown; version?: unknown } | undefined,
    request: (method) => Promise.reject(new Error(`A task's call cannot ask its client (${method}); a 2026-07-28 client is asked with input_required.`)),
    notify: () => Promise.resolve(),
  };
}

/**
 * The hub a 2026 request of this caller is answered from: the view's shared one, or its named
 * client's own where its own credentials are needed (Runtime.clientHub).
 */
function hubOf(runtime: Runtime, view: string | undefined, access: ToolAccess | undefined): () => Promise<ProxyHub> {
  const client = access?.named ? access.client : undefined;
  return () => runtime.serving.clientHub(view, undefined, { era: 'modern', ...(client !== undefined ? { client } : {}) });
}

/** The task host's rounds run in a dispatcher of their own, as the SDK's handler would run the request. */
export function hostedCallRunner(runtime: Runtime, view: string | undefined, observers: ServeObservers | undefined): CallRunner {
  return async (params, ctx, access, inFlight, headers) => {
    const hub = hubOf(runtime, view, access);
    // Mcp-Param-* checked as for a call the SDK answers (ModernRoute.serve): here, inside the time the call is given.
    const refused = await paramHeaderRefusal(headers, { jsonrpc: '2.0', id: ctx.id, method: 'tools/call', params }, hub);
    if (refused) throw protocolError(refused.error.code, refused.error.message, refused.error.data);
    const dispatcher = new Dispatcher(
      {
        hub,
        runtime,
        hasServers: (await hub()).hasServers,
        perRequest: true,
        remote: true,
        access: () => access,
        ...(inFlight ? { inFlight } : {}),
        ...(observers ? { observers } : {}),
      },
      envelopeClient(ctx),
    );
    return dispatcher.call(params, ctx);
  };
}

/**
 * The resources a subscriptions/listen request names, subscribed to upstream for as long as its
 * stream is open: each shown by the view and allowed by the rules (proxy/reach.ts), as for every
 * other request for a resource. The refusal to answer with instead, if any.
 */
async function subscribeListened(
  runtime: Runtime,
  view: string | undefined,
  body: unknown,
  access: ToolAccess,
  res: ServerResponse,
): Promise<JsonRpcRefusal | undefined> {
  const uris = listenedResources(body);
  if (uris.length > MAX_LISTEN_URIS) return tooManyResources(body, uris.length);
  if (!uris.length) return undefined;
  const hub = await hubOf(runtime, view, access)();
  const asked = [...new Set(uris)];
  const shown = await settleAtMost(asked, SUBSCRIBE_CONCURRENCY, (uri) => reach(hub.passthrough, access.allows, { uri }));
  const unknown = asked.filter((_uri, i) => shown[i]?.status !== 'fulfilled' || shown[i].value !== 'shown');
  if (unknown.length) return unknownResources(body, unknown);
  const stream = {};
  res.once('close', () => void hub.clients.detach(stream).catch(() => undefined));
  await settleAtMost(asked, SUBSCRIBE_CONCURRENCY, (uri) => hub.clients.subscribe(stream, uri));
  return undefined;
}

export function modernRoute(
  runtime: Runtime,
  view: string | undefined,
  options: {
    maxBodyBytes: number;
    /** What hears of serve's calls (the audit log, the metrics, tracing). */
    observers?: ServeObservers;
    /** serve as the task host (./task-host.ts), with the process' tasks (shared with the other replicas by serve.store). */
    tasks?: { store: TaskStore; settings: () => TaskSettings; sharing?: TaskSharing };
    /** serve.store: a bridged question's retry that another replica parked is passed to it (./remote-calls.ts). */
    remote?: RemoteCalls;
  },
): ModernRoute {
  const sdk = sdkRoute(runtime, view, options);
  // Every modern request's body is read and parsed by then (http-routes.ts); toNodeHandler is kept for one that has none.
  const parsed = parsedBodyHandler(sdk.handler);
  const unparsed = toNodeHandler(sdk.handler);
  const node = (req: IncomingMessage, res: ServerResponse, body: unknown) => (body === undefined ? unparsed(req, res) : parsed(req, res, body));
  const run = hostedCallRunner(runtime, view, options.observers);
  const serverInfo = () => ({ name: 'mcpkit', title: 'mcpkit', version: runtime.version() });
  const host = options.tasks ? new TaskHost(options.tasks.store, run, options.tasks.settings, serverInfo, options.tasks.sharing) : undefined;
  return {
    async serve(req, res, body, access, inFlight) {
      const arrived = performance.now();
      // The SDK passes req.auth to the server factory as authInfo; mcpkit checked the credential already (route-auth.ts).
      (req as IncomingMessage & { auth?: AuthInfo }).auth = { token: '', clientId: access.client, scopes: [], extra: { access, inFlight } };
      // The SDK answers subscriptions/listen itself; the resources a stream asks about are
      // subscribed to upstream for as long as it is open (a 2025 server tells only subscribers).
      const refusedListen = await subscribeListened(runtime, view, body, access, res);
      if (refusedListen) return refuse(res, refusedListen);
      // A retry whose request state another replica issued goes on there; a call the task host
      // takes runs in its own time, from its arrival (its Mcp-Param-* headers checked within).
      const answered =
        (options.remote && (await passedOn(options.remote, { req, body, access, view, serverInfo }))) ??
        (await host?.handle(body, req.headers, access, inFlight, arrived));
      if (answered) return sendAnswer(res, answered);
      const refused = await paramHeaderRefusal(req.headers, body, hubOf(runtime, view, access));
      if (refused) {
        runtime.logger.debug(`http (2026-07-28): refused: ${refused.error.message}`);
        return refuse(res, refused);
      }
      return node(req, res, body);
    },
    toolsChanged: () => sdk.handler.notify.toolsChanged(),
    close: () => sdk.close(),
  };
}

/** The SDK's handler of the route's requests mcpkit does not answer itself: each request its own server, over the view's hub. */
function sdkRoute(runtime: Runtime, view: string | undefined, options: { maxBodyBytes: number; observers?: ServeObservers; tasks?: unknown }) {
  let unsubscribe: (() => void)[] | undefined;
  const handler: McpHttpHandler = createMcpHandler(
    async ({ authInfo }) => {
      // The caller's access rides on the request (req.auth): each request is its own server.
      const { access, inFlight } = (authInfo?.extra ?? {}) as { access?: ToolAccess; inFlight?: InFlightScope };
      const hub = await runtime.serving.openHub(view, { shared: true, era: 'modern' });
      unsubscribe ??= [
        hub.events.toolsChanged.on(() => handler.notify.toolsChanged()),
        hub.events.promptsChanged.on(() => handler.notify.promptsChanged()),
        hub.events.resourcesChanged.on(() => handler.notify.resourcesChanged()),
        hub.events.updates.on((uri) => handler.notify.resourceUpdated(uri)),
      ];
      return sdkServer({
        hub: hubOf(runtime, view, access),
        runtime,
        hasServers: hub.hasServers,
        perRequest: true,
        remote: true,
        ...(options.observers ? { observers: options.observers } : {}),
        ...(inFlight ? { inFlight } : {}),
        ...(access ? { access: () => access } : {}),
        ...(options.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
      }).server;
    },
    {
      // Legacy traffic never gets here (serveHttp keeps its sessions); refusing it is a safety net.
      legacy: 'reject',
      maxRequestBodySize: options.maxBodyBytes,
      onerror: (error) => runtime.logger.debug(`http (2026-07-28): ${error.message}`),
    },
  );
  return {
    handler,
    async close() {
      unsubscribe?.forEach((off) => off());
      await handler.close();
    },
  };
}

/**
 * A retry whose request state another live replica of the store issued, passed on to it and
 * answered with what it answers (./remote-calls.ts); undefined for any other request.
 */
async function passedOn(
  remote: RemoteCalls,
  request: { req: IncomingMessage; body: unknown; access: ToolAccess; view: string | undefined; serverInfo: () => Record<string, unknown> },
): Promise<HostAnswer | undefined> {
  const { req, body, access, view } = request;
  const holder = await remote.holderOf(body).catch(() => undefined);
  if (holder === undefined || !hostMayTake(body as never, req.headers)) return undefined;
  const rpc = body as { id: unknown; params: Record<string, unknown> };
  const outcome = await remote.pass(holder, {
    path: view === undefined ? '/mcp' : `/view/${encodeURIComponent(view)}/mcp`,
    body: rpc,
    headers: forwardable(req.headers),
    caller: { id: access.client, via: access.named ? 'client' : 'token', ...(access.named ? { client: access.client } : {}) },
  });
  return callAnswer(rpc.id, outcome, request.serverInfo());
}

function sendAnswer(res: ServerResponse, answer: HostAnswer): void {
  res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.text) }).end(answer.text);
}
