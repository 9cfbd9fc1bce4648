import type { ProxyCallContext } from '../../proxy/hub.js';
import type { ToolContext } from '../../tool/context.js';
import { runLocalTool } from '../../tool/mcp-shape.js';
import type { BegunCall } from './call-chain.js';
import type { RequestContext } from './request-context.js';

/**
 * The proxy's context of one call on the ordinary path (proxy/calls/call-context.ts), made where
 * the call enters the proxy, from what the pipeline knows of it: the request, and the call's steps
 * as begun (who calls, its trace and progress, the revocation that cancels it). mcpkit's own tools
 * the call reaches run with the tools' context of this client (`tools`) and this call's signal,
 * request, progress, access and way to ask the person: what the proxy reads of a call stays its
 * own, and what a tool reads stays the tool's.
 */
export function proxyCallOf(tools: ToolContext, ctx: RequestContext, begun: BegunCall, askPerson: ToolContext['askPerson']): ProxyCallContext {
  const { revocation, progress, access, trace } = begun;
  // The router's calls take a signal: the revocation's is made here, for this path only (./revocation.ts).
  const signal = revocation ? AbortSignal.any([ctx.signal, revocation.signal]) : ctx.signal;
  const local: ToolContext = {
    ...tools,
    signal,
    requestId: ctx.id,
    ...(askPerson ? { askPerson } : {}),
    ...(progress ? { progress } : {}),
    ...(access ? { access } : {}),
  };
  return {
    signal,
    related: ctx.id,
    progress,
    modern: ctx.modern,
    trace,
    access,
    // A terminal's call (the terminal's runtime, or the daemon's) starts only the server an earlier listing names.
    reach: tools.surface === 'cli' ? 'owner' : 'listed',
    callLocal: (tool, args, { readOnly }) =>
      runLocalTool(tool, args, readOnly && !local.policy.readOnly ? { ...local, policy: { ...local.policy, readOnly: true } } : local),
  };
}
