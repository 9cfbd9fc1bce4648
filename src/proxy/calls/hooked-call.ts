import { ProtocolError, type CallToolResult } from '@modelcontextprotocol/server';
import { ToolError } from '../../core/errors.js';
import { rateLimited } from '../../core/limits.js';
import { toCallResult, toErrorResult } from '../../tool/mcp-shape.js';
import type { CatalogEntry } from '../catalog/catalog.js';
import type { ArgsGuard } from './args-validator.js';
import type { ProxyCallContext } from './call-context.js';
import type { CallRouterOptions } from './call-options.js';
import type { CallLookup } from './call-lookup.js';
import { runComposite } from './composite.js';
import { conditionRefusal } from './conditions-check.js';
import { stepEntry } from './router-parts.js';

/**
 * One call of an entry the router found, on the ordinary path: its conditions on arguments, the
 * view's hooks around it, and behind them a local tool, an upstream's tool (its arguments checked,
 * through its server's gate) or a composite's steps, each step again through the hooks.
 */

type HookedCallOptions = Pick<CallRouterOptions, 'catalog' | 'targets' | 'hooks' | 'view' | 'conditions' | 'upstreamGate'>;

export class HookedCalls {
  constructor(
    private readonly options: HookedCallOptions,
    private readonly lookup: Pick<CallLookup, 'permitted'>,
    private readonly checkArgs: ArgsGuard,
  ) {}

  /** One call, through the view's hooks. Failures of any kind come back as isError results. */
  async callEntry(entry: CatalogEntry, args: Record<string, unknown> | undefined, context: ProxyCallContext): Promise<CallToolResult> {
    const hookContext = {
      tool: entry.name,
      ...(entry.kind === 'upstream' ? { server: entry.server, upstream_tool: entry.upstreamName } : {}),
      ...(this.options.view ? { view: this.options.view } : {}),
    };
    try {
      const refused = conditionRefusal({ set: this.options.conditions, view: this.options.view }, context.access, entry, args ?? {});
      if (refused) return toErrorResult(refused);
      return await this.options.hooks.around(args ?? {}, hookContext, (a) => this.callBehindHooks(entry, a, context));
    } catch (error) {
      // A 2026-07-28 server's protocol error, relayed as it is (Upstream.call).
      if (error instanceof ProtocolError) throw error;
      return toErrorResult(error);
    }
  }

  private async callBehindHooks(entry: CatalogEntry, args: Record<string, unknown>, context: ProxyCallContext): Promise<CallToolResult> {
    switch (entry.kind) {
      case 'local':
        // A read-only client runs mcpkit's own writers that enforce read-only (arango_query) under that policy.
        return context.callLocal(entry.tool, args, { readOnly: Boolean(context.access?.readOnly && entry.tool.enforcesReadOnly) });
      case 'upstream':
        this.checkArgs(entry.name, entry.tool.inputSchema, args);
        return this.callUpstream(entry, args, context);
      case 'composite': {
        this.checkArgs(entry.name, entry.tool.inputSchema, args);
        const { failed, output } = await runComposite(entry.spec, args, (ref, stepArgs) => this.callStep(entry.name, ref, stepArgs, context));
        return { ...toCallResult(output), ...(failed ? { isError: true } : {}) };
      }
    }
  }

  /** An upstream's tool, through the SDK client: behind its server's gate (serve.upstream_limits) when it has one. */
  private async callUpstream(
    entry: Extract<CatalogEntry, { kind: 'upstream' }>,
    args: Record<string, unknown>,
    context: ProxyCallContext,
  ): Promise<CallToolResult> {
    const target = this.options.targets.get(entry.server)!;
    const call = () =>
      target.call({
        name: entry.upstreamName,
        args,
        signal: context.signal,
        progress: context.progress,
        related: context.related,
        modern: context.modern,
        trace: context.trace,
      });
    const gate = this.options.upstreamGate?.(entry.server);
    if (!gate) return call();
    // Waits for a place (a cancelled call stops waiting), else is refused as the client's own limits refuse.
    const place = await gate.limiter.wait(gate.queueMs, context.signal);
    if (!place.ok) throw rateLimited({ server: entry.server, queueMs: gate.queueMs }, place);
    try {
      return await call();
    } finally {
      place.release();
    }
  }

  /**
   * A composite step: `server.tool` (as the server publishes it) or one of the view's mcpkit tools,
   * through the view's hooks like any call (a hook that refuses a call refuses it as a step too).
   */
  private async callStep(composite: string, ref: string, args: Record<string, unknown>, context: ProxyCallContext): Promise<CallToolResult> {
    const target = stepEntry([...(await this.options.catalog.current()).values()], ref);
    if (!target) {
      throw new ToolError('NOT_FOUND', `Composite tool ${composite}: step tool "${ref}" is not served by this view.`, {
        hint: 'Write server.tool with a server of the view (its tool as the server publishes it), or an mcpkit tool the view includes.',
      });
    }
    // The rules were checked before the composite started; a reload since may have changed them.
    if (!(await this.lookup.permitted(target, context.access))) {
      throw new ToolError('NOT_FOUND', `Composite tool ${composite}: step tool "${ref}" is not served to this client.`);
    }
    return this.callEntry(target, args, context);
  }
}
