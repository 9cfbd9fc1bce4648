import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Runtime } from '../../app/runtime.js';
import type { ProxyHub } from '../../proxy/hub.js';
import type { ToolAccess } from '../../tool/context.js';
import type { ServeObservers } from '../pipeline/call-chain.js';
import type { InFlightScope } from '../pipeline/calls-in-flight.js';
import type { Dispatcher } from '../pipeline/dispatcher.js';
import { jsonRpcError } from './http-wire.js';
import type { Caller, Route } from '../access/route-access.js';
import { sdkServer } from '../pipeline/sdk-server.js';
import { idleSessions, SessionStore } from './session-store.js';
import { answerCallAsJson, takeToolCalls } from '../pipeline/wire-calls.js';
import { oneBodyWriter } from './one-body-answers.js';

/**
 * The 2025-11-25 sessions of `serve --http`: one per client, bound to the route it started on and
 * the credential that opened it. A session's requests are answered on its hot path
 * (./wire-calls.ts) or through its SDK transport; sessions end when their client says so (DELETE), when
 * idle too long (never with a request in flight), or when their credential is revoked; there are at
 * most `maxSessions` of one credential on one route.
 */
export interface Session {
  transport: NodeStreamableHTTPServerTransport;
  /** What answers its requests (./dispatcher.ts). */
  dispatcher: Dispatcher;
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

export interface SessionsOptions {
  runtime: Runtime;
  observers?: ServeObservers;
  maxSessions: number;
  idleMs: number;
  /** serve.replica_id: session ids start with "ID.", for a balancer's affinity. */
  replicaId?: string;
}

/** One request of the MCP route, as the front door let it in. */
export interface McpRequest {
  req: IncomingMessage;
  res: ServerResponse;
  body: unknown;
  path: string;
  route: Route;
  caller: Caller;
  access: ToolAccess;
  /** Where the request's calls are registered (./calls-in-flight.ts). */
  inFlight: InFlightScope;
}

export class LegacySessions {
  private readonly store: SessionStore<Session>;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: SessionsOptions) {
    this.store = new SessionStore<Session>(options.maxSessions);
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(options.idleMs / 4, 60_000)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.store.size;
  }

  /** Whether a request names a live session (then it is 2025 traffic: 2026-07-28 has no sessions). */
  has(id: unknown): boolean {
    return typeof id === 'string' && this.store.get(id) !== undefined;
  }

  values(): IterableIterator<Session> {
    return this.store.values();
  }

  end(id: string): void {
    void this.store
      .delete(id)
      ?.transport.close()
      .catch(() => undefined);
  }

  /** Ends every session `ended` picks (a reload took its credential or its view away). */
  async endWhere(ended: (session: Session) => boolean | Promise<boolean>): Promise<void> {
    for (const [id, session] of [...this.store.entries()]) if (await ended(session)) this.end(id);
  }

  /** A request of the route: on its session, or one that opens a new session (initialize). */
  async serve(request: McpRequest): Promise<void> {
    const { req, res } = request;
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return jsonRpcError(res, 400, -32000, `Bad request: unsupported MCP-Protocol-Version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}).`);
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') return this.onSession(sessionId, request);
    return this.open(request);
  }

  /** A request of a live session: answered on its hot path, or by its transport. */
  private onSession(id: string, { req, res, body, path, caller, access }: McpRequest): Promise<void> | void {
    const session = this.store.get(id);
    // A session is its opener's: another route, or another credential, does not find it.
    if (!session || session.route !== path || session.caller.id !== caller.id)
      return jsonRpcError(res, 404, -32001, 'Session not found; start a new one with initialize.');
    session.lastSeen = Date.now();
    session.access.current = access;
    if (req.method === 'POST') {
      // Idle time counts from the end of its last answer, not its start.
      session.busy++;
      res.on('close', () => {
        session.busy--;
        session.lastSeen = Date.now();
      });
    }
    if (req.method === 'POST' && answerCallAsJson(req, res, body, session.dispatcher, oneBodyWriter, id)) return;
    return session.transport.handleRequest(req, res, body);
  }

  /** initialize: a new session of its caller on its route, within the caller's quota. */
  private async open(request: McpRequest): Promise<void> {
    const { req, res, body, path, route, caller, access, inFlight } = request;
    if (req.method !== 'POST' || !(isInitializeRequest(body) || (Array.isArray(body) && body.some(isInitializeRequest)))) {
      return jsonRpcError(res, 400, -32000, 'Bad request: no mcp-session-id header; the first request must be initialize.');
    }
    const place = this.store.reserve({ route: path, callerId: caller.id });
    if (!place) {
      return jsonRpcError(
        res,
        429,
        -32000,
        `Too many sessions: this client already has ${this.options.maxSessions} open on ${path} (serve.max_sessions). End unused ones (HTTP DELETE with their mcp-session-id), or wait for idle ones to expire (serve.session_idle_ms).`,
      );
    }
    res.once('close', () => place.release());
    const { runtime } = this.options;
    const view = route.kind === 'view' ? route.view : undefined;
    const hasServers = (await runtime.serving.openHub(view, { shared: true })).hasServers;
    const held = { current: access };
    const { server, dispatcher } = sdkServer({
      hub: (downstream) => runtime.serving.clientHub(view, downstream, caller.client !== undefined ? { client: caller.client } : {}),
      runtime,
      hasServers,
      access: () => held.current,
      remote: true,
      inFlight,
      ...(this.options.observers ? { observers: this.options.observers } : {}),
    });
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => (this.options.replicaId ? `${this.options.replicaId}.${randomUUID()}` : randomUUID()),
      onsessioninitialized: (id) => {
        const toolsChanged = () => void server.sendToolListChanged().catch(() => undefined);
        const session = { transport, route: path, routeInfo: route, callerId: caller.id, caller, hub: () => dispatcher.hub, lastSeen: Date.now(), busy: 0 };
        this.store.add(id, { ...session, dispatcher, access: held, toolsChanged }, place);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.store.delete(transport.sessionId);
    };
    await server.connect(transport);
    takeToolCalls(
      transport,
      () => dispatcher,
      () => transport.sessionId,
    );
    await transport.handleRequest(req, res, body);
  }

  private sweep(): void {
    for (const id of idleSessions(this.store.entries(), Date.now(), this.options.idleMs)) this.end(id);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled([...this.store.values()].map((s) => s.transport.close()));
  }
}
