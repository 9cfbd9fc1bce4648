import type { FastCall } from '../../proxy/calls/call-router.js';
import type { ProxyHub } from '../../proxy/hub.js';
import type { ToolAccess } from '../../tool/context.js';
import type { CallParams, RequestContext } from './request-context.js';

/** How a call runs (Dispatcher.plan): who calls, read once for the whole call, and the hot path when it takes the call. */
export interface CallPlan {
  readonly access: ToolAccess | undefined;
  readonly fast: FastCall | undefined;
}

/** What the plan depends on of the request: a 2026-07-28 envelope, and a carrier that answers with `oneBody` (one JSON body, nothing before it). */
export interface PlanFor {
  envelope?: RequestContext['envelope'];
  oneBody?: boolean;
}

/**
 * Decides how a call runs. A 2026-07-28 request's envelope and answers go on through the SDK's
 * client: never the hot path, which forwards params as they came. A `oneBody` carrier takes only a
 * call that needs no stream (no relay of what a server asks, no progress), and hands any other to
 * a carrier that streams. No hub yet (the client's first request): the ordinary path, which makes it.
 */
export function planCall(
  hub: Pick<ProxyHub, 'relaysRequests' | 'calls'> | undefined,
  params: CallParams,
  access: ToolAccess | undefined,
  ctx: PlanFor,
): CallPlan {
  const takes = hub && ctx.envelope === undefined && (!ctx.oneBody || (!hub.relaysRequests && params._meta?.progressToken === undefined));
  return { access, fast: takes ? hub.calls.fastCall(params, access) : undefined };
}
