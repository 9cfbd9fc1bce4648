import { ProtocolError, type CallToolResult, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/server';
import { ToolError } from '../core/errors.js';
import { invalidArguments } from '../core/schema.js';
import { closestNames } from '../core/suggest.js';
import type { ToolContext } from '../tool/context.js';
import { runLocalTool, toCallResult, toErrorResult } from '../tool/mcp-shape.js';
import { createArgsValidator, type ArgsCheck } from './args-validator.js';
import type { CatalogEntry } from './catalog.js';
import { runComposite } from './composite.js';
import type { HookChain } from './hooks.js';
import { metaToolNames, metaTools, type MetaOp } from './meta-tools.js';
import type { Upstream } from './upstream.js';
import { publish, type ViewCatalog, type WithheldTool } from './view-catalog.js';
import { notApprovedError } from './not-approved.js';

/** `entry`: what answered (none for a meta-tool, or a tool its pins withhold). */
export type CallOutcome = { found: false; similar: string[] } | { found: true; result: CallToolResult; entry?: CatalogEntry };

/** What the router needs of an upstream: a call through the SDK client, and the hot path. */
export type CallTarget = Pick<Upstream, 'callTool' | 'forwardCall' | 'ready'>;

export interface CallRouterOptions {
  catalog: ViewCatalog;
  /** The view's servers by name. */
  targets: ReadonlyMap<string, CallTarget>;
  hooks: HookChain;
  /** The view's name, for hooks (absent for the default view). */
  view?: string;
  /** Exposure is not `direct`: the view has the search meta-tools. */
  meta: boolean;
  /** Told when an upstream's input schema cannot be compiled (its arguments are then not checked). */
  unenforced(reason: string): void;
  /** False while calls must take the SDK server's path (serve traces: the spans are made there). */
  hotPath?: () => boolean;
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
      const names = metaToolNames(options.catalog.label);
      this.metaOps = new Map(Object.entries(names).map(([op, name]) => [name, op as MetaOp]));
      const published = metaTools(options.catalog.label, { count: 0, contents: [] });
      this.metaSchemas = new Map(Object.entries(names).map(([op, name]) => [op as MetaOp, published.find((t) => t.name === name)!.inputSchema]));
    }
  }

  async call(name: string, args: Record<string, unknown> | undefined, context: ToolContext): Promise<CallOutcome> {
    const op = this.metaOps?.get(name);
    if (op) return { found: true, result: await this.callMeta(op, args ?? {}, context) };
    const entry = await this.options.catalog.entry(name);
    if (!entry) {
      const held = this.options.catalog.withheldTool(name);
      if (held) return { found: true, result: toErrorResult(notApproved(name, held)) };
      // A name the client saw in an earlier listing: said so, with what to do, never "unknown".
      const gone = this.options.catalog.goneTool(name);
      if (gone) {
        const error = new ToolError('NOT_FOUND', `Tool ${name} is no longer offered: the tools of ${gone} changed since it was listed.`, {
          details: { tool: name, similar: closestNames(name, await this.options.catalog.names()) },
          hint: 'List the tools again (tools/list); the view sent list_changed when they changed.',
        });
        return { found: true, result: toErrorResult(error) };
      }
      return { found: false, similar: closestNames(name, await this.options.catalog.names()) };
    }
    return { found: true, result: await this.callEntry(entry, args, context), entry };
  }

  /** One call, through the view's hooks. Failures of any kind come back as isError results. */
  async callEntry(entry: CatalogEntry, args: Record<string, unknown> | undefined, context: ToolContext): Promise<CallToolResult> {
    const hookContext = {
      tool: entry.name,
      ...(entry.kind === 'upstream' ? { server: entry.server, upstream_tool: entry.upstreamName } : {}),
      ...(this.options.view ? { view: this.options.view } : {}),
    };
    try {
      return await this.options.hooks.around(args ?? {}, hookContext, (a) => this.dispatch(entry, a, context));
    } catch (error) {
      // A 2026-07-28 server's protocol error, relayed as it is (Upstream.callTool).
      if (error instanceof ProtocolError) throw error;
      return toErrorResult(error);
    }
  }

  /**
   * The hot path: a tools/call of an upstream tool, once the catalog is known and no hook applies,
   * goes from our transport straight to the upstream's (Upstream.forwardCall) with its arguments
   * checked by the compiled validator. Undefined when the call must take the ordinary path (first
   * call, hooks, meta-tools, local tools, a server that is not connected). `reply` gets the result,
   * or the same error as on the ordinary path; `cancel` stops a forwarded call.
   */
  tryFastCall(
    params: { name?: unknown; arguments?: unknown },
    reply: (result: CallToolResult) => void,
    progress: (message: JSONRPCMessage) => void,
    related?: RequestId,
  ): { cancel(): void } | undefined {
    const catalog = this.options.catalog.known;
    if (!catalog || !this.options.hooks.empty || typeof params.name !== 'string' || this.options.hotPath?.() === false) return undefined;
    const entry = catalog.get(params.name);
    if (entry?.kind !== 'upstream') return undefined;
    const target = this.options.targets.get(entry.server)!;
    if (!target.ready) return undefined;
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    try {
      this.checkArgs(entry.name, entry.tool.inputSchema, args);
    } catch (error) {
      reply(toErrorResult(error));
      return { cancel() {} };
    }
    const cancel = target.forwardCall(
      { ...params, name: entry.upstreamName },
      (outcome) => reply(outcome instanceof ToolError ? toErrorResult(outcome) : outcome),
      progress,
      related,
    );
    return { cancel };
  }

  private async dispatch(entry: CatalogEntry, args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult> {
    switch (entry.kind) {
      case 'local':
        return runLocalTool(entry.tool, args, context);
      case 'upstream':
        this.checkArgs(entry.name, entry.tool.inputSchema, args);
        return this.options.targets
          .get(entry.server)!
          .callTool(entry.upstreamName, args, context.signal, context.progress, context.requestId, context.modern, context.trace);
      case 'composite': {
        this.checkArgs(entry.name, entry.tool.inputSchema, args);
        const { failed, output } = await runComposite(entry.spec, args, (ref, stepArgs) => this.callStep(entry.name, ref, stepArgs, context));
        return { ...toCallResult(output), ...(failed ? { isError: true } : {}) };
      }
    }
  }

  /** A composite step: `server.tool` (as the server publishes it) or one of the view's mcpkit tools. */
  private async callStep(composite: string, ref: string, args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult> {
    const entries = [...(await this.options.catalog.current()).values()];
    const dot = ref.indexOf('.');
    const target =
      dot > 0
        ? entries.find(
            (e) => e.kind === 'upstream' && e.server === ref.slice(0, dot) && (e.tool.name === ref.slice(dot + 1) || e.upstreamName === ref.slice(dot + 1)),
          )
        : entries.find((e) => e.kind === 'local' && e.name === ref);
    if (!target) {
      throw new ToolError('NOT_FOUND', `Composite tool ${composite}: step tool "${ref}" is not served by this view.`, {
        hint: 'Write server.tool with a server of the view (its tool as the server publishes it), or an mcpkit tool the view includes.',
      });
    }
    try {
      return await this.dispatch(target, args, context);
    } catch (error) {
      return toErrorResult(error); // published like any call's error (fields in MCP's words)
    }
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

  private async callMeta(op: MetaOp, args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult> {
    const { catalog } = this.options;
    const names = metaToolNames(catalog.label);
    try {
      this.checkArgs(names[op], this.metaSchemas!.get(op)!, args);
      if (op === 'search') {
        const found = await catalog.search(String(args.query), typeof args.limit === 'number' ? args.limit : 10);
        return toCallResult({ query: args.query, ...found });
      }
      const name = String(args.name);
      const entries = await catalog.current();
      const entry = entries.get(name);
      if (!entry) {
        const similar = closestNames(name, [...entries.keys()]);
        throw new ToolError('NOT_FOUND', `No tool named "${name}" in ${this.options.view ? `view "${this.options.view}"` : 'mcpkit'}.`, {
          details: { tool: name, similar },
          hint: similar.length ? `Did you mean ${similar.join(', ')}?` : `Search with ${names.search}.`,
        });
      }
      if (op === 'describe') return toCallResult(publish(entry));
      return await this.callEntry(entry, (args.arguments as Record<string, unknown> | undefined) ?? {}, context);
    } catch (error) {
      return toErrorResult(error);
    }
  }
}

/** A call to a tool its pins withhold: what changed, and how to review and approve it. */
export function notApproved(name: string, held: WithheldTool): ToolError {
  return notApprovedError({ noun: 'tool', name, server: held.server, upstreamName: held.tool, why: held.why });
}
