import type { CallToolResult } from '@modelcontextprotocol/server';
import type { DeclaredTool } from '../../code/declarations.js';
import type { ConditionRule } from '../../conditions/rules.js';
import { toErrorResult } from '../../tool/mcp-shape.js';
import type { ToolAccess } from '../../tool/tool-access.js';
import type { CatalogEntry } from '../catalog/catalog.js';
import { createArgsGuard, type ArgsGuard } from './args-validator.js';
import type { ProxyCallContext } from './call-context.js';
import { CallDeclarations } from './call-declarations.js';
import { CallLookup, type Found } from './call-lookup.js';
import type { CallRouterOptions } from './call-options.js';
import { fastCallOf, type FastCall } from './fast-call.js';
import { HookedCalls } from './hooked-call.js';
import { MetaCalls } from './meta-calls.js';

export type { CallRouterOptions, UpstreamGate } from './call-options.js';
export type { ProxyCallContext } from './call-context.js';
export type { FastCall } from './fast-call.js';
export { readsOnly, type Found } from './call-lookup.js';

/** `entry`: what answered (none for a search, or a tool its pins withhold); `via`: the meta-tool that called it. */
export type CallOutcome =
  | { found: false; similar: string[] }
  | {
      found: true;
      result: CallToolResult;
      entry?: CatalogEntry;
      via?: string;
      /** A meta-tool answered (a search, a description): mcpkit's own. */ meta?: boolean;
    };

/**
 * Where a tools/call goes: a meta-tool (search, describe, call: ./meta-calls.ts), one of mcpkit's
 * own tools, an upstream's tool (its arguments checked against the schema the server publishes),
 * or a composite's steps (./hooked-call.ts); the view's hooks wrap every call but the meta-tools
 * themselves. What a name is and who may call it is ./call-lookup.ts; the hot path's admission,
 * ./fast-call.ts; code mode's declarations, ./call-declarations.ts. Any tool of the catalog may be
 * called by name, listed or not: what tools/list shows is about an agent's context (exposure), not
 * about access, which the policy and the view decide before a tool is in the catalog at all. Every
 * failure is an isError result; an unknown name is `found: false`.
 */
export class CallRouter {
  private readonly checkArgs: ArgsGuard;
  private readonly lookup: CallLookup;
  private readonly hooked: HookedCalls;
  private readonly declarations: CallDeclarations;
  /** The view's meta-tools, when its exposure is not `direct`. */
  private readonly meta?: MetaCalls;

  constructor(private readonly options: CallRouterOptions) {
    this.checkArgs = createArgsGuard(options.unenforced);
    this.lookup = new CallLookup(options.catalog);
    this.hooked = new HookedCalls(options, this.lookup, this.checkArgs);
    this.declarations = new CallDeclarations(options, this.lookup);
    if (options.meta) {
      const parts = { lookup: this.lookup, declarations: this.declarations, hooked: this.hooked, checkArgs: this.checkArgs };
      this.meta = new MetaCalls({ ...options, meta: options.meta }, parts);
    }
  }

  /** Whether a name is one of the view's search meta-tools. */
  isMeta(name: string): boolean {
    return this.meta?.opOf(name) !== undefined;
  }

  async call(name: string, args: Record<string, unknown> | undefined, context: ProxyCallContext): Promise<CallOutcome> {
    const op = this.meta?.opOf(name);
    if (op) {
      // A call through the meta-tool is recorded under the tool it ran (via the meta-tool).
      let ran: CatalogEntry | undefined;
      const result = await this.meta!.callMeta(op, args ?? {}, context, (entry) => (ran = entry));
      return ran ? { found: true, result, entry: ran, via: name } : { found: true, result, meta: true };
    }
    // A terminal's call starts only the server an earlier listing names (ViewCatalog.entryForCall).
    const found = await this.find(name, context.access, context.reach === 'owner' ? (n) => this.options.catalog.entryForCall(n) : undefined);
    if (found.kind === 'unknown') return { found: false, similar: found.similar };
    if (found.kind !== 'entry') return { found: true, result: toErrorResult(found.error) };
    return { found: true, result: await this.hooked.callEntry(found.entry, args, context), entry: found.entry };
  }

  /** What a name the client calls is, for every front end alike (CallLookup.find). */
  find(name: string, access: ToolAccess | undefined, lookup?: (name: string) => Promise<CatalogEntry | undefined>): Promise<Found> {
    return this.lookup.find(name, access, lookup);
  }

  /** Whether the client may call an entry (CallLookup.permitted). */
  permitted(entry: CatalogEntry, access: ToolAccess | undefined): Promise<boolean> {
    return this.lookup.permitted(entry, access);
  }

  /** The hot path, if it takes this call (./fast-call.ts). */
  fastCall(params: { name?: unknown; arguments?: unknown; _meta?: unknown }, access?: ToolAccess): FastCall | undefined {
    return fastCallOf(this.options, this.checkArgs, params, access);
  }

  /** Every tool this client may call, as a code-mode script reaches it. */
  declaredTools(access: ToolAccess | undefined): Promise<DeclaredTool[]> {
    return this.declarations.declaredTools(access);
  }

  /** The conditions that apply to this caller's calls of an entry: the view's, then its own. */
  rulesOf(entry: CatalogEntry, access: ToolAccess | undefined): readonly ConditionRule[] {
    return this.declarations.rulesOf(entry, access);
  }
}
