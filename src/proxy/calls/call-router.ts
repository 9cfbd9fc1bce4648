import { ProtocolError, type CallToolResult } from '@modelcontextprotocol/server';
import { ToolError } from '../../core/errors.js';
import { rateLimited, type Limiter } from '../../core/limits.js';
import { invalidArguments } from '../../core/schema.js';
import { closestNames } from '../../core/suggest.js';
import type { ToolAccess, ToolContext } from '../../tool/context.js';
import { runLocalTool, toCallResult, toErrorResult } from '../../tool/mcp-shape.js';
import { createArgsValidator, type ArgsCheck } from './args-validator.js';
import type { CatalogEntry } from '../catalog/catalog.js';
import { runComposite } from './composite.js';
import type { HookChain } from './hooks.js';
import { metaToolNames, metaTools, type MetaMode, type MetaOp } from '../catalog/meta-tools.js';
import type { DeclaredTool } from '../../code/declarations.js';
import type { DeclarationLimits } from '../../code/declaration-limits.js';
import { declarationsResult } from './code-declarations.js';
import type { ConditionRule, ConditionSet } from '../../conditions/rules.js';
import { conditionRefusal, rulesFor, withConditions } from './conditions-check.js';
import { stepEntry, stepRefs } from './router-parts.js';
import { declaredNamed, declaredToolOf } from '../catalog/code-names.js';
import type { Upstream } from '../upstream/upstream.js';
import type { ForwardHow } from '../upstream/send-call.js';
import { publish, type ViewCatalog, type WithheldTool } from '../catalog/view-catalog.js';
import { notApprovedError } from './not-approved.js';

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

/** What a called name is (CallRouter.find). */
export type Found =
  { kind: 'entry'; entry: CatalogEntry } | { kind: 'withheld' | 'gone' | 'refused'; error: ToolError } | { kind: 'unknown'; similar: string[] };

/** What the router needs of an upstream: a call through the SDK client, and the hot path. */
export type CallTarget = Pick<Upstream, 'call' | 'forward' | 'ready'>;

/** A call the hot path takes (CallRouter.fastCall): what answers it, and how to run it. */
export interface FastCall {
  entry: CatalogEntry;
  run(how: ForwardHow & { reply: (result: CallToolResult) => void }): () => void;
}

/** serve.upstream_limits of one server: calls wait for a place up to `queueMs`, then are refused. */
export interface UpstreamGate {
  /** A place for one call, waiting up to queue_ms (core/limits.ts Limiter, or the shared store's). */
  limiter: Pick<Limiter, 'wait'>;
  queueMs: number;
}

export interface CallRouterOptions {
  catalog: ViewCatalog;
  /** The view's servers by name. */
  targets: ReadonlyMap<string, CallTarget>;
  hooks: HookChain;
  /** The view's name, for hooks (absent for the default view). */
  view?: string;
  /** The view's conditions on arguments (./conditions-check.ts). */
  conditions?: ConditionSet | undefined;
  /** Exposure is not `direct`: the view has the search meta-tools, or code mode's (`code`). */
  meta: false | MetaMode;
  /** Code mode's bounds of declarations (the view's code settings), for search and describe. */
  declarations?: DeclarationLimits;
  /** Told when an upstream's input schema cannot be compiled (its arguments are then not checked). */
  unenforced(reason: string): void;
  /** serve.upstream_limits: the gate of a server's calls, if it has one (its calls then take the ordinary path). */
  upstreamGate?: (server: string) => UpstreamGate | undefined;
}

/**
 * Where a tools/call goes: a meta-tool (search, describe, call), one of mcpkit's own tools, an
 * upstream's tool (its arguments checked against the schema the server publishes), or a
 * composite's steps; the view's hooks wrap every call but the meta-tools themselves. Any tool of
 * the catalog may be called by name, listed or not: what tools/list shows is about an agent's
 * context (exposure), not about access, which the policy and the view decide before a tool is in
 * the catalog at all. Every failure is an isError result; an unknown name is `found: false`.
 */
export class CallRouter {
  private readonly argsCheck: (schema: object) => ArgsCheck;
  private readonly checks = new WeakMap<object, ArgsCheck>();
  private readonly metaOps?: Map<string, MetaOp>;
  /** Input schemas of the meta-tools, by op (they do not depend on the catalog). */
  private readonly metaSchemas?: Map<MetaOp, object>;

  constructor(private readonly options: CallRouterOptions) {
    this.argsCheck = createArgsValidator(options.unenforced);
    if (options.meta) {
      const names = metaToolNames(options.catalog.label, options.meta);
      this.metaOps = new Map(Object.entries(names).map(([op, name]) => [name, op as MetaOp]));
      const published = metaTools(options.catalog.label, { count: 0, contents: [] }, false, options.meta);
      this.metaSchemas = new Map(Object.entries(names).map(([op, name]) => [op as MetaOp, published.find((t) => t.name === name)!.inputSchema]));
    }
  }

  /** Whether a name is one of the view's search meta-tools. */
  isMeta(name: string): boolean {
    return this.metaOps?.has(name) === true;
  }

  async call(name: string, args: Record<string, unknown> | undefined, context: ToolContext): Promise<CallOutcome> {
    const op = this.metaOps?.get(name);
    if (op) {
      // A call through the meta-tool is recorded under the tool it ran (via the meta-tool).
      let ran: CatalogEntry | undefined;
      const result = await this.callMeta(op, args ?? {}, context, (entry) => (ran = entry));
      return ran ? { found: true, result, entry: ran, via: name } : { found: true, result, meta: true };
    }
    // A terminal's call starts only the server an earlier listing names (ViewCatalog.entryForCall).
    const found = await this.find(name, context.access, context.surface === 'cli' ? (n) => this.options.catalog.entryForCall(n) : undefined);
    if (found.kind === 'unknown') return { found: false, similar: found.similar };
    if (found.kind !== 'entry') return { found: true, result: toErrorResult(found.error) };
    return { found: true, result: await this.callEntry(found.entry, args, context), entry: found.entry };
  }

  /**
   * What a name the client calls is, for every front end alike (MCP and the terminal): a tool it
   * may call; one its pins withhold (TOOL_NOT_APPROVED); one an earlier listing showed that is
   * gone (NOT_FOUND, saying so); or unknown, with the names like it this client may call. A tool
   * this client may not call is unknown, exactly as one that does not exist. `lookup` finds the
   * entry (the terminal's starts only the server an earlier listing names).
   */
  async find(
    name: string,
    access: ToolAccess | undefined,
    lookup: (name: string) => Promise<CatalogEntry | undefined> = (n) => this.options.catalog.entry(n),
  ): Promise<Found> {
    const entry = await lookup(name);
    if (entry && (await this.permitted(entry, access))) return { kind: 'entry', entry };
    if (!entry && this.allowsName(access, name)) {
      const held = this.options.catalog.withheldTool(name);
      if (held) return { kind: 'withheld', error: notApproved(name, held) };
      // A name the client saw in an earlier listing: said so, with what to do, never "unknown".
      const gone = this.options.catalog.goneTool(name);
      if (gone) {
        const error = new ToolError('NOT_FOUND', `Tool ${name} is no longer offered: the tools of ${gone} changed since it was listed.`, {
          details: { tool: name, similar: await this.similar(name, access) },
          hint: 'List the tools again (tools/list); the view sent list_changed when they changed.',
        });
        return { kind: 'gone', error };
      }
      const refused = this.options.catalog.refusedTool(name);
      if (refused) return { kind: 'refused', error: refused };
    }
    return { kind: 'unknown', similar: await this.similar(name, access) };
  }

  /** The names like `name` that this client may call. */
  private async similar(name: string, access: ToolAccess | undefined): Promise<string[]> {
    return closestNames(name, access?.allows ? [...(await this.permittedNames(access))] : await this.options.catalog.names());
  }

  private allowsName(access: ToolAccess | undefined, name: string): boolean {
    return !access?.allows || access.allows({ name, readOnly: false }) || access.allows({ name, readOnly: true });
  }

  /**
   * Whether the client may call an entry: its rules over the published name (and read_only over
   * what the tool declares); a composite only when it may call every step as well.
   */
  async permitted(entry: CatalogEntry, access: ToolAccess | undefined): Promise<boolean> {
    if (!access?.allows) return true;
    if (entry.kind !== 'composite') return access.allows({ name: entry.name, readOnly: readsOnly(entry) });
    const entries = [...(await this.options.catalog.current()).values()];
    const steps = stepRefs(entry.spec).map((ref) => stepEntry(entries, ref));
    if (steps.some((step) => !step)) return false;
    // A composite is published as a writer (readOnlyHint false), as a read-only view leaves it out.
    return access.allows({ name: entry.name, readOnly: false }) && steps.every((step) => access.allows!({ name: step!.name, readOnly: readsOnly(step!) }));
  }

  /** One call, through the view's hooks. Failures of any kind come back as isError results. */
  async callEntry(entry: CatalogEntry, args: Record<string, unknown> | undefined, context: ToolContext): Promise<CallToolResult> {
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

  /**
   * The hot path: a tools/call of an upstream tool, once the catalog is known and no hook applies,
   * goes from our transport straight to the upstream's (Upstream.forward) with its arguments
   * checked by the compiled validator. Undefined when the call must take the ordinary path (first
   * call, hooks, meta-tools, local tools, a server that is not connected, a tool this client may
   * not call, which the ordinary path refuses as unknown). Deciding does not run the call: the
   * front end begins its steps (mcp/pipeline/call-chain.ts) first, then runs it; `reply` gets the result,
   * or the same error as on the ordinary path, and the function it returns cancels a forwarded call.
   */
  fastCall(params: { name?: unknown; arguments?: unknown; _meta?: unknown }, access?: ToolAccess): FastCall | undefined {
    const catalog = this.options.catalog.known;
    if (!catalog || !this.options.hooks.empty || typeof params.name !== 'string') return undefined;
    const entry = catalog.get(params.name);
    if (entry?.kind !== 'upstream') return undefined;
    const target = this.options.targets.get(entry.server)!;
    if (!target.ready || this.options.upstreamGate?.(entry.server)) return undefined;
    if (access?.allows && !access.allows({ name: entry.name, readOnly: readsOnly(entry) })) return undefined;
    return {
      entry,
      run: ({ reply, ...how }) => {
        const args = (params.arguments ?? {}) as Record<string, unknown>;
        try {
          this.checkArgs(entry.name, entry.tool.inputSchema, args);
          const refused = conditionRefusal({ set: this.options.conditions, view: this.options.view }, access, entry, args);
          if (refused) throw refused;
        } catch (error) {
          reply(toErrorResult(error));
          return () => {};
        }
        return target.forward(
          { ...params, name: entry.upstreamName },
          (outcome) => reply(outcome instanceof ToolError ? toErrorResult(outcome) : outcome),
          how,
        );
      },
    };
  }

  private async callBehindHooks(entry: CatalogEntry, args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult> {
    switch (entry.kind) {
      case 'local':
        // A read-only client runs mcpkit's own writers that enforce read-only (arango_query) under that policy.
        if (context.access?.readOnly && entry.tool.enforcesReadOnly && !context.policy.readOnly)
          return runLocalTool(entry.tool, args, { ...context, policy: { ...context.policy, readOnly: true } });
        return runLocalTool(entry.tool, args, context);
      case 'upstream': {
        this.checkArgs(entry.name, entry.tool.inputSchema, args);
        const target = this.options.targets.get(entry.server)!;
        const call = () =>
          target.call({
            name: entry.upstreamName,
            args,
            signal: context.signal,
            progress: context.progress,
            related: context.requestId,
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
      case 'composite': {
        this.checkArgs(entry.name, entry.tool.inputSchema, args);
        const { failed, output } = await runComposite(entry.spec, args, (ref, stepArgs) => this.callStep(entry.name, ref, stepArgs, context));
        return { ...toCallResult(output), ...(failed ? { isError: true } : {}) };
      }
    }
  }

  /**
   * A composite step: `server.tool` (as the server publishes it) or one of the view's mcpkit tools,
   * through the view's hooks like any call (a hook that refuses a call refuses it as a step too).
   */
  private async callStep(composite: string, ref: string, args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult> {
    const target = stepEntry([...(await this.options.catalog.current()).values()], ref);
    if (!target) {
      throw new ToolError('NOT_FOUND', `Composite tool ${composite}: step tool "${ref}" is not served by this view.`, {
        hint: 'Write server.tool with a server of the view (its tool as the server publishes it), or an mcpkit tool the view includes.',
      });
    }
    // The rules were checked before the composite started; a reload since may have changed them.
    if (!(await this.permitted(target, context.access))) {
      throw new ToolError('NOT_FOUND', `Composite tool ${composite}: step tool "${ref}" is not served to this client.`);
    }
    return this.callEntry(target, args, context);
  }

  private checkArgs(name: string, schema: object, args: unknown): void {
    let check = this.checks.get(schema);
    if (!check) {
      check = this.argsCheck(schema);
      this.checks.set(schema, check);
    }
    const issues = check(args ?? {});
    if (issues.length) throw invalidArguments(name, issues);
  }

  private async callMeta(op: MetaOp, args: Record<string, unknown>, context: ToolContext, ran: (entry: CatalogEntry) => void): Promise<CallToolResult> {
    const { catalog } = this.options;
    const names = metaToolNames(catalog.label, this.options.meta || 'search');
    try {
      this.checkArgs(names[op]!, this.metaSchemas!.get(op)!, args);
      const access = context.access;
      if (this.options.meta === 'code') return await this.codeMeta(op, args, access);
      if (op === 'search') {
        const keep = access?.allows ? await this.permittedNames(access) : undefined;
        const found = await catalog.search(String(args.query), typeof args.limit === 'number' ? args.limit : 10, keep);
        return toCallResult({ query: args.query, ...found });
      }
      const entry = await this.metaEntry(String(args.name), access);
      if (op === 'describe') return toCallResult(withConditions(publish(entry), this.rulesOf(entry, access)));
      ran(entry);
      return await this.callEntry(entry, (args.arguments as Record<string, unknown> | undefined) ?? {}, context);
    } catch (error) {
      return toErrorResult(error);
    }
  }

  /** The entry a meta-tool names, if this client may call it; else NOT_FOUND with the names like it. */
  private async metaEntry(name: string, access: ToolAccess | undefined): Promise<CatalogEntry> {
    const entry = (await this.options.catalog.current()).get(name);
    if (entry && (await this.permitted(entry, access))) return entry;
    const similar = await this.similar(name, access);
    const search = metaToolNames(this.options.catalog.label, this.options.meta || 'search').search;
    throw new ToolError('NOT_FOUND', `No tool named "${name}" in ${this.options.view ? `view "${this.options.view}"` : 'mcpkit'}.`, {
      details: { tool: name, similar },
      hint: similar.length ? `Did you mean ${similar.join(', ')}?` : `Search with ${search}.`,
    });
  }

  /**
   * Code mode's search and describe: the TypeScript declarations a script calls the tools by. The
   * run itself is the front end's (mcp/pipeline/dispatcher.ts, the terminal's code run): its calls go
   * through the whole chain of a call, which the router is below.
   */
  private async codeMeta(op: MetaOp, args: Record<string, unknown>, access: ToolAccess | undefined): Promise<CallToolResult> {
    const { catalog } = this.options;
    if (op === 'search') {
      const keep = access?.allows ? await this.permittedNames(access) : undefined;
      const found = await catalog.search(String(args.query), typeof args.limit === 'number' ? args.limit : 10, keep);
      const entries = await catalog.current();
      const declared = found.results.map((r) => this.declared(entries.get(r.name)!, access));
      return declarationsResult({ query: args.query, total: found.total }, declared, this.options.declarations);
    }
    if (op === 'describe') {
      const tools = await this.declaredTools(access);
      const named = declaredNamed(tools, String(args.name));
      const entry = await this.metaEntry(named?.published ?? String(args.name), access);
      return declarationsResult({}, [this.declared(entry, access)], this.options.declarations);
    }
    const run = metaToolNames(catalog.label, 'code').run;
    throw new ToolError(
      'FORBIDDEN',
      `${run} runs where a client's calls go through mcpkit's whole chain: serve (over MCP), or mcpkit code run in a terminal.`,
      {
        hint: 'Run the script with: mcpkit code run FILE',
      },
    );
  }

  /** Every tool this client may call, as a code-mode script reaches it. */
  async declaredTools(access: ToolAccess | undefined): Promise<DeclaredTool[]> {
    const out: DeclaredTool[] = [];
    for (const entry of (await this.options.catalog.current()).values()) if (await this.permitted(entry, access)) out.push(this.declared(entry, access));
    return out;
  }

  /** A tool as code mode declares it to this caller: with the conditions that apply to it. */
  private declared(entry: CatalogEntry, access: ToolAccess | undefined): DeclaredTool {
    return withConditions(declaredToolOf(entry, this.options.catalog.separator), this.rulesOf(entry, access));
  }

  /** The conditions that apply to this caller's calls of an entry: the view's, then its own. */
  rulesOf(entry: CatalogEntry, access: ToolAccess | undefined): readonly ConditionRule[] {
    return rulesFor(this.options.conditions, access, entry.name);
  }

  /** The names of the catalog this client may call. */
  private async permittedNames(access: ToolAccess): Promise<Set<string>> {
    const out = new Set<string>();
    for (const entry of (await this.options.catalog.current()).values()) if (await this.permitted(entry, access)) out.add(entry.name);
    return out;
  }
}

/** Whether a tool only reads: it declares readOnlyHint, or it is one of mcpkit's writers that refuse to write under read-only. */
export function readsOnly(entry: CatalogEntry): boolean {
  if (entry.kind === 'local') return entry.tool.annotations.readOnlyHint || entry.tool.enforcesReadOnly === true;
  return entry.tool.annotations?.readOnlyHint === true;
}

/** A call to a tool its pins withhold: what changed, and how to review and approve it. */
export function notApproved(name: string, held: WithheldTool): ToolError {
  return notApprovedError({ noun: 'tool', name, server: held.server, upstreamName: held.tool, why: held.why });
}
