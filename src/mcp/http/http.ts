import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorObject } from '../../core/errors.js';
import { CallsInFlight } from '../pipeline/calls-in-flight.js';
import { RouteAuth } from '../access/route-auth.js';
import { ServedClients } from '../access/served-clients.js';
import { TaskStore } from '../tasks/task-store.js';
import { TaskSharing } from '../tasks/task-sharing.js';
import { RemoteCalls } from '../tasks/remote-calls.js';
import { taskSettingsOf } from '../tasks/task-settings.js';
import { LegacySessions } from './http-sessions.js';
import { boundedResponseClass } from './send-guard.js';
import { modernRoute, type ModernRoute } from './modern-http.js';
import { jsonRpcError, listenFailed, sendJson } from './http-wire.js';
import { startFleet } from './fleet.js';
import { frontDoor } from './front-door.js';
import { answeredScope, followRevocations } from './revocations.js';
import { runPassedCall } from './passed-calls.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_SEND_BUFFER_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SEND_TIMEOUT_MS,
  DEFAULT_SESSION_IDLE_MS,
  type HttpServeOptions,
  type ServingParts,
  type Whose,
} from './http-options.js';

export type { HttpSettings } from '../access/route-auth.js';
export type { HttpServeOptions } from './http-options.js';

/**
 * serve --http: the server, and what its routes share. Who comes in is decided at the front door
 * (./front-door.ts); a reload that takes a credential away ends what it had open
 * (./revocations.ts); calls another replica passes here run as ./passed-calls.ts says.
 */
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
function httpParts(options: HttpServeOptions, auth: RouteAuth): ServingParts {
  const { runtime } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // The tasks serve hosts for 2026-07-28 clients, across routes; its settings follow the config.
  const store = runtime.serving.store;
  const served = new ServedClients(undefined, store);
  const taskStore = new TaskStore(() => Date.now(), options.replicaId);
  const sharing = store ? new TaskSharing(store, taskStore, runtime.logger) : undefined;
  const tasks = { store: taskStore, settings: () => taskSettingsOf(runtime.configs.live.loaded?.serve.tasks), ...(sharing ? { sharing } : {}) };
  const modernRoutes = new Map<string, ModernRoute>();
  const calls = new CallsInFlight<Whose>();
  const remote = store ? new RemoteCalls(store, (call) => runPassedCall(options, served, calls, call), runtime.logger) : undefined;
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
    inFlight: (route, caller, res) => answeredScope(calls, { route, caller }, res),
    fleet: startFleet({ runtime, store, replicaId: options.replicaId, inFlight: () => calls.count() }),
    maxBodyBytes,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.audit ? { audit: options.audit } : {}),
    ...(store ? { store: () => store.status() } : {}),
    modernRoutes,
    calls,
    ...(sharing ? { sharing } : {}),
    ...(remote ? { remote } : {}),
    close: () => tasks.store.close(),
  };
}
