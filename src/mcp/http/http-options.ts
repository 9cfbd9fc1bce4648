import type { AuditStatus } from '../../audit/audit-log.js';
import { SETTING_DEFAULTS } from '../../config/schema/defaults.js';
import type { Runtime } from '../../app/runtime.js';
import type { ServeObservers } from '../pipeline/call-chain.js';
import type { CallsInFlight } from '../pipeline/calls-in-flight.js';
import type { Caller, Route } from '../access/route-access.js';
import type { HttpSettings } from '../access/route-auth.js';
import type { TaskSharing } from '../tasks/task-sharing.js';
import type { RemoteCalls } from '../tasks/remote-calls.js';
import type { HttpParts } from './http-routes.js';
import type { ModernRoute } from './modern-http.js';

/**
 * What serve --http is given. Its routes: `/mcp` (default view), `/view/{name}/mcp`, `/views`,
 * `/views/{name}`, `/health`, `/metrics`. The front door (./front-door.ts) checks where a request
 * comes from and who it is, then a route's own handler answers it (./http-routes.ts); 2025
 * sessions are ./http-sessions.ts, the 2026-07-28 leg of each MCP route ./modern-http.ts. Who may
 * use which route: ../access/route-access.ts (pure) and ../access/route-auth.ts (OAuth).
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

/** Whose a call is: the caller and the route it came in on. */
export type Whose = { route: Route; caller: Caller };

/** What the routes share (./http-routes.ts), and what serveHttp itself keeps of it: the modern legs, the calls in flight, the tasks shared with other replicas. */
export interface ServingParts extends HttpParts {
  modernRoutes: Map<string, ModernRoute>;
  calls: CallsInFlight<Whose>;
  sharing?: TaskSharing;
  remote?: RemoteCalls;
  close(): void;
}
