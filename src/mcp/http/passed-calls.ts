import type { CallMessage } from '../../store/shared-store.js';
import { scopeOf, type CallsInFlight } from '../pipeline/calls-in-flight.js';
import { outcomeOf, roundContext, type Outcome } from '../pipeline/call-round.js';
import { callParamsOf } from '../pipeline/wire-calls.js';
import type { Caller } from '../access/route-access.js';
import type { ServedClients } from '../access/served-clients.js';
import type { HttpServeOptions, Whose } from './http-options.js';
import { hostedCallRunner } from './modern-http.js';
import { routeOfPath } from './http-wire.js';

/**
 * A call another replica passed here over serve.store (../tasks/remote-calls.ts): run on its route
 * as the caller that replica let in, with this process' settings, rules and limits.
 */
export async function runPassedCall(
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
