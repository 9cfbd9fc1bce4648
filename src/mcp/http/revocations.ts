import type { ServerResponse } from 'node:http';
import type { CallsInFlight, InFlightScope } from '../pipeline/calls-in-flight.js';
import type { Caller, Route } from '../access/route-access.js';
import type { HttpSettings, RouteAuth } from '../access/route-auth.js';
import { followTokenDeadlines } from '../access/token-deadlines.js';
import type { HttpServeOptions, ServingParts, Whose } from './http-options.js';

/**
 * The longest a reload waits for revoked calls' answers before it ends their sessions anyway: a
 * client that does not read holds its answer's stream open (until serve.send_timeout_ms cuts it),
 * and must not keep its sessions, or the other revoked clients' sessions, open meanwhile.
 */
export const MOST_WAIT_FOR_REVOKED_ANSWERS_MS = 2000;

/**
 * Where a request's calls are registered: cancelling one settles once its answer has left on the
 * request's own response (or that response is gone), not merely once the call has ended, so the
 * sessions ended after it do not cut the answer that says why.
 */
export function answeredScope(calls: CallsInFlight<Whose>, whose: Whose, res: ServerResponse): InFlightScope {
  return { add: (cancel) => calls.add(whose, () => cancel().then(() => responseDone(res))) };
}

/** Settles once the response has been sent whole or its connection has closed. */
function responseDone(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
}

/** Settles with `value` after `ms`, unless `cancelled` first; keeps no process alive. */
function afterAtMost<T>(ms: number, value: T): { promise: Promise<T>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(value), ms).unref()));
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * After each applied reload: the clients are told to list again when serve.clients changed, and
 * what a credential the reload took away (a token removed, a route closed, a view deleted) had
 * open ends: its calls in flight first (the upstream is told, the client answered where it still
 * listens), then, once those answers have left, its sessions with their streams, and its open
 * 2026 answers.
 */
export function followRevocations(options: HttpServeOptions, parts: ServingParts, auth: RouteAuth) {
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
    const bound = afterAtMost(MOST_WAIT_FOR_REVOKED_ANSWERS_MS, -1);
    const cancelled = await Promise.race([parts.calls.cancel(calls), bound.promise]);
    bound.cancel();
    if (cancelled !== 0) logger.info('http: call(s) in flight cancelled: their credential no longer opens their route');
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
