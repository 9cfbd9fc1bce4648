import type {
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  JSONRPCMessage,
  LoggingLevel,
  LoggingMessageNotification,
  RequestId,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { BackoffPolicy } from '../core/backoff.js';
import { ToolError } from '../core/errors.js';
import { invalidArguments } from '../core/schema.js';
import { withTimeout } from '../core/timeout.js';
import { runLocalTool, toCallResult, toErrorResult, toMcpTool } from '../tool/mcp-shape.js';
import { closestNames } from '../core/suggest.js';
import { summaryOf } from '../tool/define.js';
import type { ExposureSummary, ToolContext } from '../tool/context.js';
import { GROUP_SUMMARIES } from '../tool/groups.js';
import { keepUnderReadOnly } from '../tool/policy.js';
import { createArgsValidator, type ArgsCheck } from './args-validator.js';
import { buildCatalog, publishedUpstreamTool, type CatalogEntry } from './catalog.js';
import { runComposite } from './composite.js';
import { HookChain } from './hooks.js';
import { planExposure, type ExposurePlan } from './exposure.js';
import { metaToolNames, metaTools, type MetaOp } from './meta-tools.js';
import { PromptResourceRouter } from './prompts-resources.js';
import { buildSearchIndex, searchTools, type SearchIndex } from './search-index.js';
import { reshapeTools, shapeServerTools } from './shape.js';
import { mostVerbose } from './log-levels.js';
import { Upstream, type DownstreamRelay, type UpstreamStatus } from './upstream.js';
import { FEATURED_TOOLS, type ResolvedView } from './view.js';

/**
 * Serves one view: mcpkit's own tools it includes plus the shaped tools of its upstream servers,
 * as one catalog, or as search meta-tools over it (`exposure`, ./exposure.ts). Upstreams connect lazily
 * and in parallel; a slow one is left out of a listing after `listWaitMs` and announced with
 * list_changed once it arrives.
 */
export interface HubOptions {
  view: ResolvedView;
  context: ToolContext;
  version: string;
  /** How long tools/list waits for upstreams that are still starting. */
  listWaitMs?: number;
  stderr?: (line: string) => void;
  /** Shared upstream connections (several views over HTTP); created here when absent. */
  upstreams?: Map<string, Upstream>;
  /** Where hook module paths are relative to: the config file's folder. */
  baseDir?: string;
  /**
   * The one client this hub serves, when it has connections of its own for that client (which
   * declared sampling, elicitation or roots): its upstreams are offered those capabilities and
   * their requests reach it. Absent: connections may be shared by several clients.
   */
  downstream?: DownstreamRelay;
  /** How upstreams this hub makes reconnect (a terminal command's: not at all). */
  backoff?: BackoffPolicy;
}

export type LogListener = (params: LoggingMessageNotification['params'], related: RequestId | undefined) => void;

export type CallOutcome = { found: false; similar: string[] } | { found: true; result: CallToolResult };

export class ProxyHub {
  readonly view: ResolvedView;
  private readonly options: HubOptions;
  private readonly upstreams: Upstream[];
  private readonly byServer: Map<string, Upstream>;
  private readonly ownsUpstreams: boolean;
  private catalog?: Map<string, CatalogEntry>;
  private searchIndex?: SearchIndex;
  /** The exposure plan of the cached catalog. */
  private plan?: { catalog: Map<string, CatalogEntry>; plan: ExposurePlan };
  private readonly listeners = new Set<() => void>();
  private readonly argsCheck: (schema: object) => ArgsCheck;
  private readonly checks = new WeakMap<object, ArgsCheck>();
  private readonly meta?: Map<string, MetaOp>;
  /** Input schemas of the meta-tools, by op (they do not depend on the catalog). */
  private readonly metaSchemas?: Map<MetaOp, object>;
  private readonly hooks: HookChain;
  /** prompts/* and resources/* of the view's servers. */
  readonly passthrough: PromptResourceRouter;
  private readonly promptListeners = new Set<() => void>();
  private readonly resourceListeners = new Set<() => void>();
  private readonly logListeners = new Set<LogListener>();
  private readonly updateListeners = new Set<(uri: string) => void>();
  /** Each client's log level (keyed by its session object), and who subscribed to which URI. */
  private readonly levels = new Map<object, LoggingLevel>();
  private readonly subscribers = new Map<string, { upstream: Upstream; sessions: Set<object> }>();

  constructor(options: HubOptions) {
    this.options = options;
    this.view = options.view;
    const { logger } = options.context;
    this.argsCheck = createArgsValidator((reason) => logger.warn(`an input schema is not enforced: ${reason}`));
    this.ownsUpstreams = !options.upstreams;
    const pool = options.upstreams ?? new Map<string, Upstream>();
    this.upstreams = options.view.servers.map(({ name, config, problems }) => {
      let upstream = pool.get(name);
      if (!upstream) {
        upstream = new Upstream({
          name,
          config,
          logger,
          version: options.version,
          stderr: options.stderr ?? ((line) => process.stderr.write(line)),
          ...(options.downstream ? { downstream: options.downstream } : {}),
          ...(options.backoff ? { backoff: options.backoff } : {}),
          ...(problems ? { problems } : {}),
          waiting: (message) => options.context.waiting(message),
        });
        pool.set(name, upstream);
      }
      upstream.onToolsChanged(() => this.toolsChanged());
      upstream.onPromptsChanged(() => this.promptListeners.forEach((l) => l()));
      upstream.onResourcesChanged(() => this.resourceListeners.forEach((l) => l()));
      // A shared connection's calls in flight may be another client's: relate logs only on our own.
      upstream.onLog((params, related) => this.logListeners.forEach((l) => l(params, options.downstream ? related : undefined)));
      upstream.onResourceUpdated((uri) => this.updateListeners.forEach((l) => l(uri)));
      return upstream;
    });
    this.byServer = new Map(this.upstreams.map((u) => [u.name, u]));
    this.passthrough = new PromptResourceRouter(
      options.view.servers.map(({ config, view }, i) => ({ upstream: this.upstreams[i]!, rules: [config.filter ?? [], view?.filter ?? []] })),
      options.view.separator,
    );
    this.hooks = new HookChain(options.view.hooks, options.baseDir ?? options.context.cwd);
    if (options.view.exposure !== 'direct') {
      const names = metaToolNames(this.label);
      this.meta = new Map(Object.entries(names).map(([op, name]) => [name, op as MetaOp]));
      const published = metaTools(this.label, { count: 0, contents: [] });
      this.metaSchemas = new Map(Object.entries(names).map(([op, name]) => [op as MetaOp, published.find((t) => t.name === name)!.inputSchema]));
    }
  }

  /** What the meta-tools are named after: the view, or "mcpkit" for the default one. */
  private get label(): string {
    return this.view.name ?? 'mcpkit';
  }

  /** Each returns a function that unsubscribes (an HTTP session that ends must stop listening). */
  onListChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onPromptsChanged(listener: () => void): () => void {
    this.promptListeners.add(listener);
    return () => this.promptListeners.delete(listener);
  }

  onResourcesChanged(listener: () => void): () => void {
    this.resourceListeners.add(listener);
    return () => this.resourceListeners.delete(listener);
  }

  /** Log messages of the view's servers (each client filters them by its own level). */
  onLog(listener: LogListener): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  /** notifications/resources/updated of the view's servers (each client keeps to its subscriptions). */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  /** True when this hub's connections are one client's own (server-to-client requests reach it). */
  get relaysRequests(): boolean {
    return this.options.downstream !== undefined;
  }

  /** True when the view has upstream servers (prompts, resources, completions and subscriptions come from them). */
  get hasServers(): boolean {
    return this.upstreams.length > 0;
  }

  /**
   * logging/setLevel from one client: each client keeps its own level (it filters what reaches
   * it); the servers are asked for the most verbose level any client of theirs wants.
   */
  async setLogLevel(session: object, level: LoggingLevel): Promise<void> {
    this.levels.set(session, level);
    await this.applyLevels();
  }

  private async applyLevels(): Promise<void> {
    const level = mostVerbose(this.levels.values());
    if (level) await Promise.allSettled(this.upstreams.map((u) => u.setLoggingLevel(level)));
  }

  /** resources/subscribe: the server that owns the URI is subscribed once, whoever else asks. */
  async subscribe(session: object, uri: string): Promise<void> {
    const upstream = await this.passthrough.resourceOwner(uri);
    if (!upstream)
      throw new ToolError('NOT_FOUND', `Resource not found: ${uri}.`, { details: { uri }, hint: 'Call resources/list for the available resources.' });
    const entry = this.subscribers.get(uri) ?? { upstream, sessions: new Set<object>() };
    if (entry.sessions.size === 0 && !(await upstream.subscription(uri, true))) {
      throw new ToolError('NOT_FOUND', `Server "${upstream.name}" does not take subscriptions, so ${uri} cannot be watched.`, {
        details: { uri, server: upstream.name },
      });
    }
    entry.sessions.add(session);
    this.subscribers.set(uri, entry);
  }

  async unsubscribe(session: object, uri: string): Promise<void> {
    const entry = this.subscribers.get(uri);
    if (!entry?.sessions.delete(session)) return;
    if (entry.sessions.size === 0) {
      this.subscribers.delete(uri);
      await entry.upstream.subscription(uri, false);
    }
  }

  /** A client went away: its level and subscriptions no longer count. */
  async detach(session: object): Promise<void> {
    const hadLevel = this.levels.delete(session);
    await Promise.allSettled([...this.subscribers.keys()].map((uri) => this.unsubscribe(session, uri)));
    if (hadLevel) await this.applyLevels();
  }

  /** completion/complete, routed by prompt name (mapped back to the server's own) or template URI. */
  async complete(params: CompleteRequest['params']): Promise<CompleteResult> {
    const ref = params.ref;
    if (ref.type === 'ref/prompt') {
      const owner = await this.passthrough.promptOwner(ref.name);
      if (!owner) throw new ToolError('NOT_FOUND', `Unknown prompt: ${ref.name}.`, { hint: 'Call prompts/list for the available prompts.' });
      return owner.upstream.complete({ ...params, ref: { ...ref, name: owner.name } });
    }
    const upstream = (await this.passthrough.templateOwner(ref.uri)) ?? (await this.passthrough.resourceOwner(ref.uri));
    if (!upstream) throw new ToolError('NOT_FOUND', `No resource template ${ref.uri}.`, { hint: 'Call resources/templates/list for the available templates.' });
    return upstream.complete(params);
  }

  /** The client's roots changed: its servers are told (connections of its own only). */
  async rootsChanged(): Promise<void> {
    if (this.options.downstream) await Promise.allSettled(this.upstreams.map((u) => u.rootsChanged()));
  }

  status(): UpstreamStatus[] {
    return this.upstreams.map((u) => u.status());
  }

  /** Starts every upstream now instead of on first use (`serve --eager`). */
  async warmUp(): Promise<void> {
    await Promise.allSettled(this.upstreams.map((u) => u.listTools()));
  }

  /** What tools/list shows: the catalog, or the meta-tools plus the tools kept direct (./exposure.ts). */
  async list(): Promise<Tool[]> {
    return (await this.currentPlan()).listed;
  }

  /** How tools/list is made now, and what it costs. */
  async exposurePlan(): Promise<ExposureSummary> {
    const plan = await this.currentPlan();
    const names = plan.unknownPins.length ? await this.names() : [];
    return {
      mode: plan.mode,
      budget: this.view.tokenBudget,
      catalog_tokens: plan.catalogTokens,
      list_tokens: plan.listTokens,
      direct: plan.direct,
      unknown_pins: plan.unknownPins.map((pin) => ({ pin, similar: closestNames(pin, names) })),
    };
  }

  private async currentPlan(): Promise<ExposurePlan> {
    const catalog = await this.currentCatalog();
    if (this.plan?.catalog === catalog) return this.plan.plan;
    const tools = [...catalog.values()].map(publish);
    const plan = planExposure(tools, {
      exposure: this.view.exposure,
      budget: this.view.tokenBudget,
      pins: this.view.pins,
      featured: FEATURED_TOOLS,
      meta: () =>
        metaTools(
          this.label,
          { ...(this.view.description ? { description: this.view.description } : {}), count: tools.length, contents: this.contents(catalog) },
          this.view.readOnly,
        ),
    });
    // Only a complete listing is kept (see currentCatalog); one cut short is planned again.
    if (this.catalog === catalog) {
      this.plan = { catalog, plan };
      const where = this.view.name ? `tool_views.${this.view.name}.pin` : 'serve.pin';
      for (const pin of plan.unknownPins) this.options.context.logger.warn(`${where}: "${pin}" names no tool of the view ("mcpkit view tools" lists them)`);
    }
    return plan;
  }

  /** The kinds of tools in the catalog, for the meta-tools' description: mcpkit's groups, then each server. */
  private contents(catalog: Map<string, CatalogEntry>): string[] {
    const groups = new Map<string, number>();
    const servers = new Map<string, number>();
    for (const entry of catalog.values()) {
      const counts = entry.kind === 'upstream' ? servers : groups;
      const key = entry.kind === 'upstream' ? entry.server : entry.kind === 'local' ? entry.tool.group : 'composite';
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const out: string[] = [];
    if (groups.size) out.push(`mcpkit's own ${[...groups].map(([g, n]) => `${g} (${n}${GROUP_SUMMARIES[g] ? `: ${GROUP_SUMMARIES[g]}` : ''})`).join(', ')}`);
    for (const [name, n] of servers) {
      const about = this.serverDescription(name);
      out.push(`server "${name}" (${n} tools${about ? `: ${about}` : ''})`);
    }
    return out;
  }

  /** A server's `description` in the config, which says what it is for. */
  private serverDescription(name: string): string | undefined {
    return this.view.servers.find((s) => s.name === name)?.config.description;
  }

  /** The full catalog, whatever the exposure. */
  async catalogTools(): Promise<Tool[]> {
    return [...(await this.currentCatalog()).values()].map(publish);
  }

  /** The server an exposed name belongs to, from the last catalog. */
  serverOf(name: string): string | undefined {
    const entry = this.catalog?.get(name);
    return entry?.kind === 'upstream' ? entry.server : undefined;
  }

  /**
   * One entry of the catalog, found as soon as the server that has it has answered: a slow or
   * dead server of the view does not hold up a call to another one (`mcpkit call` with a remote
   * that is down). Unknown names wait for the whole catalog, as tools/list does.
   */
  async entry(name: string): Promise<CatalogEntry | undefined> {
    if (this.catalog) return this.catalog.get(name);
    const known = this.catalogFromCache().get(name);
    if (known) return known;
    const live = this.upstreams.filter((u) => u.status().state !== 'down');
    const early = await new Promise<CatalogEntry | undefined>((resolve) => {
      let pending = live.length;
      if (pending === 0) resolve(undefined);
      for (const upstream of live) {
        void upstream
          .listTools()
          .catch(() => undefined)
          .then(() => {
            const found = this.catalogFromCache().get(name);
            if (found || --pending === 0) resolve(found);
          });
      }
    });
    return early ?? (await this.currentCatalog()).get(name);
  }

  /** Every tool of the catalog, whatever tools/list shows (the terminal's `call` runs any of them). */
  async names(): Promise<string[]> {
    return [...(await this.currentCatalog()).keys()];
  }

  /**
   * Runs a tools/call. Any tool of the catalog may be called by name, listed or not: the listing
   * is about what an agent's context holds (exposure), not about access, which the policy and the
   * view decide before a tool is in the catalog at all. An unknown name is `found: false`; every
   * other failure is an isError result.
   */
  async call(name: string, args: Record<string, unknown> | undefined, context: ToolContext): Promise<CallOutcome> {
    const op = this.meta?.get(name);
    if (op) return { found: true, result: await this.callMeta(op, args ?? {}, context) };
    const entry = await this.entry(name);
    if (!entry) return { found: false, similar: closestNames(name, await this.names()) };
    return { found: true, result: await this.callEntry(entry, args, context) };
  }

  /** One call, through the view's hooks. Failures of any kind come back as isError results. */
  async callEntry(entry: CatalogEntry, args: Record<string, unknown> | undefined, context: ToolContext): Promise<CallToolResult> {
    const hookContext = {
      tool: entry.name,
      ...(entry.kind === 'upstream' ? { server: entry.server, upstream_tool: entry.upstreamName } : {}),
      ...(this.view.name ? { view: this.view.name } : {}),
    };
    try {
      return await this.hooks.around(args ?? {}, hookContext, (a) => this.dispatch(entry, a, context));
    } catch (error) {
      return toErrorResult(error);
    }
  }

  private async dispatch(entry: CatalogEntry, args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult> {
    switch (entry.kind) {
      case 'local':
        return runLocalTool(entry.tool, args, context);
      case 'upstream':
        return this.callUpstream(entry, args, context.signal, context.progress, context.requestId);
      case 'composite': {
        this.checkArgs(entry.name, entry.tool.inputSchema, args);
        const { failed, output } = await runComposite(entry.spec, args, (ref, stepArgs) => this.callStep(entry.name, ref, stepArgs, context));
        return { ...toCallResult(output), ...(failed ? { isError: true } : {}) };
      }
    }
  }

  /** A composite step: `server.tool` (as the server publishes it) or one of the view's mcpkit tools. */
  private async callStep(composite: string, ref: string, args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult> {
    const catalog = await this.currentCatalog();
    const dot = ref.indexOf('.');
    const entries = [...catalog.values()];
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

  /**
   * The proxy's hot path: a tools/call of an upstream tool, once the catalog is known and no hook
   * applies, goes straight from our transport to the upstream's with its arguments checked by the
   * compiled validator. Returns undefined when the call must take the ordinary path (first call,
   * hooks, meta-tools, local tools, a server that is not connected). The reply is the call's result,
   * a failure in the same error as on the ordinary path; `cancel` stops a forwarded call.
   */
  tryFastCall(
    params: { name?: unknown; arguments?: unknown },
    reply: (result: CallToolResult) => void,
    progress: (message: JSONRPCMessage) => void,
    related?: RequestId,
  ): { cancel(): void } | undefined {
    if (!this.catalog || !this.hooks.empty || typeof params.name !== 'string') return undefined;
    const entry = this.catalog.get(params.name);
    if (entry?.kind !== 'upstream') return undefined;
    const upstream = this.byServer.get(entry.server)!;
    if (!upstream.ready) return undefined;
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    try {
      this.checkArgs(entry.name, entry.tool.inputSchema, args);
    } catch (error) {
      reply(toErrorResult(error));
      return { cancel() {} };
    }
    const cancel = upstream.forwardCall(
      { ...params, name: entry.upstreamName },
      (outcome) => reply(outcome instanceof ToolError ? toErrorResult(outcome) : outcome),
      progress,
      related,
    );
    return { cancel };
  }

  /** Forwards a call of an upstream tool, after checking its arguments against the upstream's schema. */
  async callUpstream(
    entry: Extract<CatalogEntry, { kind: 'upstream' }>,
    args: Record<string, unknown> | undefined,
    signal?: AbortSignal,
    progress?: ToolContext['progress'],
    related?: RequestId,
  ): Promise<CallToolResult> {
    this.checkArgs(entry.name, entry.tool.inputSchema, args);
    const upstream = this.byServer.get(entry.server)!;
    return upstream.callTool(entry.upstreamName, args, signal, progress, related);
  }

  async close(): Promise<void> {
    if (this.ownsUpstreams) await Promise.allSettled(this.upstreams.map((u) => u.close()));
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
    const names = metaToolNames(this.label);
    try {
      this.checkArgs(names[op], this.metaSchemas!.get(op)!, args);
      const catalog = await this.currentCatalog();
      if (op === 'search') {
        this.searchIndex ??= buildSearchIndex([...catalog.values()].map((entry) => ({ tool: publish(entry), source: this.sourceOf(entry) })));
        const limit = typeof args.limit === 'number' ? args.limit : 10;
        const hits = searchTools(this.searchIndex, String(args.query), limit);
        return toCallResult({
          query: args.query,
          total: catalog.size,
          results: hits.map((h) => ({ name: h.name, score: h.score, description: summaryOf(publish(catalog.get(h.name)!)) })),
        });
      }
      const name = String(args.name);
      const entry = catalog.get(name);
      if (!entry) {
        const similar = closestNames(name, [...catalog.keys()]);
        throw new ToolError('NOT_FOUND', `No tool named "${name}" in ${this.view.name ? `view "${this.view.name}"` : 'mcpkit'}.`, {
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

  /** Where a tool comes from, in words a task may use: the server's name and description, or mcpkit's group. */
  private sourceOf(entry: CatalogEntry): string {
    if (entry.kind === 'upstream') {
      const about = this.serverDescription(entry.server);
      return about ? `${entry.server} ${about}` : entry.server;
    }
    return entry.kind === 'local' ? `${entry.tool.group} ${GROUP_SUMMARIES[entry.tool.group] ?? ''}` : '';
  }

  private toolsChanged(): void {
    this.catalog = undefined;
    this.plan = undefined;
    this.searchIndex = undefined;
    for (const listener of this.listeners) listener();
    // Rebuilt right away (from the refreshed caches), so calls go back on the hot path.
    void this.currentCatalog().catch(() => undefined);
  }

  private async currentCatalog(): Promise<Map<string, CatalogEntry>> {
    if (this.catalog) return this.catalog;
    const wait = this.options.listWaitMs ?? 15_000;
    // A server that is down keeps its last known tools listed; their calls fail fast with UNAVAILABLE.
    const live = this.upstreams.filter((u) => u.status().state !== 'down');
    const all = Promise.allSettled(live.map((u) => u.listTools()));
    // allSettled never rejects: a rejection here is the deadline.
    const late = await withTimeout(
      all.then(() => false),
      wait,
      () => new Error('late'),
    ).catch(() => true);
    if (late) {
      this.options.context.logger.warn(`tools/list: some upstream servers were not ready after ${wait} ms; their tools follow with list_changed`);
      void all.then(() => this.toolsChanged());
    }
    const catalog = this.catalogFromCache();
    // A listing cut short is not cached: the next one asks the late servers again.
    if (!late) this.catalog = catalog;
    return catalog;
  }

  /** The catalog from the tools each upstream has listed so far (none, for one not yet connected). */
  private catalogFromCache(): Map<string, CatalogEntry> {
    const upstreamTools = this.view.servers.map(({ name, config, view }) => {
      const own = shapeServerTools(this.byServer.get(name)!.cachedTools(), config);
      const shaped = view ? reshapeTools(own, view) : own;
      return { server: name, tools: this.view.readOnly ? shaped.filter((t) => keepUnderReadOnly(t.tool.annotations)) : shaped };
    });
    const composites = this.view.readOnly ? [] : this.view.composites;
    const entries = buildCatalog(this.view.local, upstreamTools, { separator: this.view.separator }, composites);
    return new Map(entries.map((e) => [e.name, e]));
  }
}

function publish(entry: CatalogEntry): Tool {
  if (entry.kind === 'upstream') return publishedUpstreamTool(entry);
  return entry.kind === 'local' ? toMcpTool(entry.tool) : { ...entry.tool, name: entry.name };
}
