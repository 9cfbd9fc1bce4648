import type { CallToolResult } from '@modelcontextprotocol/server';
import { ToolError } from '../../core/errors.js';
import type { ToolAccess } from '../../tool/tool-access.js';
import { toErrorResult } from '../../tool/mcp-shape.js';
import type { CatalogEntry } from '../catalog/catalog.js';
import type { ForwardHow } from '../upstream/send-call.js';
import type { ArgsGuard } from './args-validator.js';
import type { CallRouterOptions } from './call-options.js';
import { readsOnly } from './call-lookup.js';
import { conditionRefusal } from './conditions-check.js';

/**
 * The hot path's admission, decided once per call (CallRouter.fastCall, from Dispatcher.plan): a
 * decision only, with the run that checks what the ordinary path checks before it forwards.
 */

/** A call the hot path takes (CallRouter.fastCall): what answers it, and how to run it. */
export interface FastCall {
  entry: CatalogEntry;
  run(how: ForwardHow & { reply: (result: CallToolResult) => void }): () => void;
}

type FastCallOptions = Pick<CallRouterOptions, 'catalog' | 'targets' | 'hooks' | 'view' | 'conditions' | 'upstreamGate'>;

/**
 * The hot path: a tools/call of an upstream tool, once the catalog is known and no hook applies,
 * goes from our transport straight to the upstream's (Upstream.forward) with its arguments
 * checked by the compiled validator. Undefined when the call must take the ordinary path (first
 * call, hooks, meta-tools, local tools, a server that is not connected, a tool this client may
 * not call, which the ordinary path refuses as unknown). Deciding does not run the call: the
 * front end begins its steps (mcp/pipeline/call-chain.ts) first, then runs it; `reply` gets the result,
 * or the same error as on the ordinary path, and the function it returns cancels a forwarded call.
 */
export function fastCallOf(
  options: FastCallOptions,
  checkArgs: ArgsGuard,
  params: { name?: unknown; arguments?: unknown; _meta?: unknown },
  access?: ToolAccess,
): FastCall | undefined {
  const catalog = options.catalog.known;
  if (!catalog || !options.hooks.empty || typeof params.name !== 'string') return undefined;
  const entry = catalog.get(params.name);
  if (entry?.kind !== 'upstream') return undefined;
  const target = options.targets.get(entry.server)!;
  if (!target.ready || options.upstreamGate?.(entry.server)) return undefined;
  if (access?.allows && !access.allows({ name: entry.name, readOnly: readsOnly(entry) })) return undefined;
  return {
    entry,
    run: ({ reply, ...how }) => {
      const args = (params.arguments ?? {}) as Record<string, unknown>;
      try {
        checkArgs(entry.name, entry.tool.inputSchema, args);
        const refused = conditionRefusal({ set: options.conditions, view: options.view }, access, entry, args);
        if (refused) throw refused;
      } catch (error) {
        reply(toErrorResult(error));
        return () => {};
      }
      return target.forward({ ...params, name: entry.upstreamName }, (outcome) => reply(outcome instanceof ToolError ? toErrorResult(outcome) : outcome), how);
    },
  };
}
