import type { CallToolResult, CompleteRequest, CompleteResult, RequestId, Tool } from '@modelcontextprotocol/server';
import { ToolError } from '../core/errors.js';
import { Listeners } from '../core/listeners.js';
import type { ExposureSummary, ToolAccess, ToolContext } from '../tool/context.js';
import { CallRouter, type CallOutcome, type FastCall, type Found } from './calls/call-router.js';
import type { CatalogEntry } from './catalog/catalog.js';
import { ClientStates } from './client-state.js';
import { HookChain } from './calls/hooks.js';
import { PromptResourceRouter, type ItemGate } from './prompts-resources.js';
import type { LogParams, Upstream, UpstreamStatus } from './upstream/upstream.js';
import { publish, ViewCatalog, type PinGate } from './catalog/view-catalog.js';
import { hiddenTools, type HiddenTool } from './catalog/hidden-tools.js';
import { differingMessage } from './pins/pins.js';
import { viewPrefixes, type ResolvedView } from './catalog/view.js';

export type { CallOutcome } from './calls/call-router.js';
import type { UpstreamGate } from './calls/call-router.js';
import { codeLimitsOf, type CodeLimits } from '../code/limits.js';
import { declarationLimitsOf } from '../code/declaration-limits.js';
import { bareName, OWN_GROUP, toolTreeOf, type CodeTools } from './catalog/code-names.js';
import { metaToolNames } from './catalog/meta-tools.js';

export type LogListener = (params: LogParams, related: RequestId | undefined) => void;

export interface HubOptions {
  view: ResolvedView;
  context: ToolContext;
  /** The upstream of each of the view's servers, made (or shared) by the runtime. */
  upstream(server: ResolvedView['servers'][number]): Upstream;
  /** Whether this hub owns its upstreams (closes them with itself). */
  ownsUpstreams: boolean;
  /** The upstreams' connections are one client's own: their requests (sampling, elicitation, roots) reach it. */
  relaysRequests: boolean;
  /** What each of mcpkit's groups is for (ToolGroup.summary). */
  groupSummaries: ReadonlyMap<string, string>;
  /** How long tools/list waits for upstreams that are still starting. */
  listWaitMs?: number;
  /** Where hook module paths are relative to: the config file's folder. */
  baseDir: string;
  /** Told when the hub is closed (the runtime then stops re-pointing it). */
  onClose?: () => void;
  /** Tool pinning (./pin-keeper.ts); absent: every listed tool is served. */
  pins?: PinGate & ItemGate;
  /** serve.upstream_limits (CallRouterOptions.upstreamGate). */
  upstreamGate?: (server: string) => UpstreamGate | undefined;
}

/**
 * Serves one view to its clients, out of parts with one job each: the catalog and what tools/list
 * shows of it (./view-catalog.ts), where a call goes (./call-router.ts), what each client asked
 * for (./client-state.ts), prompts and resources (./prompts-resources.ts), over the view's
 * upstreams (./upstream.ts). The hub wires them and passes the upstreams' events on. Upstreams
 * connect lazily and in parallel; a slow one is left out of a listing after `listWaitMs` and
 * announced with list_changed once it arrives.
 */
export class ProxyHub {
  /** What each client of the view asked for: log level and subscriptions (kept across reconfigure). */
  readonly clients: ClientStates;
  private current!: { view: ResolvedView; upstreams: Upstream[]; catalog: ViewCatalog; router: CallRouter; passthrough: PromptResourceRouter };
  private readonly listChanged = new Listeners();
  private readonly promptsChanged = new Listeners();
  private readonly resourcesChanged = new Listeners();
  private readonly logs = new Listeners<[LogParams, RequestId | undefined]>();
  private readonly updates = new Listeners<[string]>();
  private unwire: (() => void)[] = [];

  constructor(private readonly options: HubOptions) {
    this.clients = new ClientStates([], (uri) => this.passthrough.resourceOwner(uri));
    this.build(options.view, options.upstream);
  }

  get view(): ResolvedView {
    return this.current.view;
  }

  /** prompts/* and resources/* of the view's servers. */
  get passthrough(): PromptResourceRouter {
    return this.current.passthrough;
  }

  /** The upstreams the hub serves now (the runtime's reload retires the ones no hub uses any more). */
  upstreamList(): readonly Upstream[] {
    return this.current.upstreams;
  }

  /**
   * The view as the config now resolves it, over these upstreams (a config reload). Clients keep
   * their levels and the subscriptions of servers that stay; each listener hears list_changed once:
   * tools always, prompts and resources when the servers or their rules changed.
   */
  reconfigure(view: ResolvedView, upstream: HubOptions['upstream']): void {
    const before = this.current;
    this.unwire.forEach((off) => off());
    this.unwire = [];
    this.build(view, upstream);
    const rules = (h: typeof before) => h.view.servers.map((s) => [s.name, s.config.filter ?? null, s.view?.filter ?? null]);
    const serversChanged =
      before.upstreams.length !== this.current.upstreams.length ||
      before.upstreams.some((u, i) => u !== this.current.upstreams[i]) ||
      JSON.stringify(rules(before)) !== JSON.stringify(rules(this.current));
    this.listChanged.emit();
    if (serversChanged) {
      this.promptsChanged.emit();
      this.resourcesChanged.emit();
    }
  }

  private build(view: ResolvedView, upstreamOf: HubOptions['upstream']): void {
    const { logger } = this.options.context;
    const upstreams = view.servers.map((server) => this.wire(upstreamOf(server)));
    const byServer = new Map(upstreams.map((u) => [u.name, u]));
    const catalog = new ViewCatalog({
      view,
      sources: byServer,
      logger,
      groupSummaries: this.options.groupSummaries,
      ...(this.options.listWaitMs !== undefined ? { listWaitMs: this.options.listWaitMs } : {}),
      late: () => {
        if (this.current.catalog === catalog) this.toolsChanged();
      },
      ...(this.options.pins ? { pins: this.options.pins } : {}),
      // pinning: warn serves a changed tool; the view's clients are told, as a log message at warning level.
      differs: (server, tool, why) => this.logs.emit({ level: 'warning', logger: 'mcpkit', data: differingMessage(server, tool, why, 'warn') }, undefined),
    });
    // What the clients saw before a reload stays known, so a name a reload took away is told so.
    if (this.current) catalog.inherit(this.current.catalog);
    const router = new CallRouter({
      catalog,
      targets: byServer,
      hooks: new HookChain(view.hooks, this.options.baseDir),
      ...(view.name ? { view: view.name } : {}),
      meta: view.exposure === 'direct' ? false : view.exposure === 'code' ? 'code' : 'search',
      declarations: declarationLimitsOf(view.code),
      unenforced: (reason) => logger.warn(`an input schema is not enforced: ${reason}`),
      ...(this.options.upstreamGate ? { upstreamGate: this.options.upstreamGate } : {}),
    });
    const passthrough = new PromptResourceRouter(
      view.servers.map(({ config, view: shaping }, i) => ({
        upstream: upstreams[i]!,
        rules: [config.filter ?? [], shaping?.filter ?? []],
        pinning: config.pinning ?? view.pinning,
      })),
      view.separator,
      viewPrefixes(view),
      this.options.pins,
    );
    this.current = { view, upstreams, catalog, router, passthrough };
    this.clients.retarget(upstreams);
  }

  /** Passes an upstream's events on to this hub's listeners. */
  private wire(upstream: Upstream): Upstream {
    const relays = this.options.relaysRequests;
    this.unwire.push(
      upstream.onToolsChanged(() => this.toolsChanged()),
      upstream.onPromptsChanged(() => this.promptsChanged.emit()),
      upstream.onResourcesChanged(() => this.resourcesChanged.emit()),
      // A shared connection's calls in flight may be another client's: relate logs only on our own.
      upstream.onLog((params, related) => this.logs.emit(params, relays ? related : undefined)),
      upstream.onResourceUpdated((uri) => this.updates.emit(uri)),
    );
    return upstream;
  }

  /** Each returns a function that unsubscribes (an HTTP session that ends must stop listening). */
  onListChanged(listener: () => void): () => void {
    return this.listChanged.on(listener);
  }

  onPromptsChanged(listener: () => void): () => void {
    return this.promptsChanged.on(listener);
  }

  onResourcesChanged(listener: () => void): () => void {
    return this.resourcesChanged.on(listener);
  }

  /** Log messages of the view's servers (each client filters them by its own level: `clients.wantsLog`). */
  onLog(listener: LogListener): () => void {
    return this.logs.on(listener);
  }

  /** notifications/resources/updated of the view's servers (each client keeps to its subscriptions: `clients.subscribed`). */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    return this.updates.on(listener);
  }

  /** True when this hub's connections are one client's own (server-to-client requests reach it). */
  get relaysRequests(): boolean {
    return this.options.relaysRequests;
  }

  /** True when the view has upstream servers (prompts, resources, completions and subscriptions come from them). */
  get hasServers(): boolean {
    return this.current.upstreams.length > 0;
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
    if (this.options.relaysRequests) await Promise.allSettled(this.current.upstreams.map((u) => u.rootsChanged()));
  }

  status(): UpstreamStatus[] {
    return this.current.upstreams.map((u) => u.status());
  }

  /** Starts every upstream now instead of on first use (`serve --eager`). */
  async warmUp(): Promise<void> {
    await Promise.allSettled(this.current.upstreams.map((u) => u.listTools()));
  }

  /**
   * What tools/list shows: the catalog, or the meta-tools plus the tools kept direct (./exposure.ts);
   * to a client with rules (serve.clients), only what it may call.
   */
  async list(access?: ToolAccess): Promise<Tool[]> {
    const listed = (await this.current.catalog.exposure()).listed;
    if (!access?.allows) return listed;
    const { catalog, router } = this.current;
    const entries = await catalog.current();
    const out: Tool[] = [];
    for (const tool of listed) {
      const entry = entries.get(tool.name);
      // The meta-tools are not catalog entries: they stay, and find only what the client may call.
      if (!(entry ? await router.permitted(entry, access) : router.isMeta(tool.name))) continue;
      // To a read-only client, an mcpkit writer that refuses to write under read-only is a reader (as under serve --read-only).
      const reader = access.readOnly && entry?.kind === 'local' && entry.tool.enforcesReadOnly && !tool.annotations?.readOnlyHint;
      out.push(reader ? { ...tool, annotations: { ...tool.annotations, readOnlyHint: true, destructiveHint: false } } : tool);
    }
    return out;
  }

  /** How tools/list is made now, and what it costs. */
  exposurePlan(): Promise<ExposureSummary> {
    return this.current.catalog.summary();
  }

  /** The full catalog, whatever the exposure. */
  catalogTools(): Promise<Tool[]> {
    return this.current.catalog.tools();
  }

  /** What answers a name on the hot path (whose calls exist only once the catalog is known), for the audit log. */
  knownEntry(name: string): CatalogEntry | undefined {
    return this.current.catalog.known?.get(name);
  }

  /** The server an exposed name belongs to, from the last complete catalog. */
  serverOf(name: string): string | undefined {
    const entry = this.current.catalog.known?.get(name);
    return entry?.kind === 'upstream' ? entry.server : undefined;
  }

  /** One entry of the catalog, found as soon as the server that has it answered. */
  entry(name: string): Promise<CatalogEntry | undefined> {
    return this.current.catalog.entry(name);
  }

  /** The entry a terminal's call of `name` goes to, starting only the server it needs when an earlier listing names it (ViewCatalog.entryForCall). */
  entryForCall(name: string): Promise<CatalogEntry | undefined> {
    return this.current.catalog.entryForCall(name);
  }

  /** What a terminal's call of `name` is, as the router judges a call over MCP (CallRouter.find), starting only the server it needs. */
  findForCall(name: string): Promise<Found> {
    const catalog = this.current.catalog;
    return this.current.router.find(name, undefined, (n) => catalog.entryForCall(n));
  }

  /** The catalog from what is known without starting anything: this process's listings, else earlier ones (`tools --cached`). */
  knownTools(): { tools: { tool: Tool; server?: string }[]; unlisted: string[] } {
    const unlisted = this.current.upstreams.filter((u) => u.cachedTools().length === 0 && !u.listedLive()).map((u) => u.name);
    const entries = [...this.current.catalog.fromCache().values()].filter((e) => e.kind !== 'local');
    return { tools: entries.map((e) => ({ tool: publish(e), ...(e.kind === 'upstream' ? { server: e.server } : {}) })), unlisted };
  }

  /** Every tool of the catalog, whatever tools/list shows (the terminal's `call` runs any of them). */
  names(): Promise<string[]> {
    return this.current.catalog.names();
  }

  call(name: string, args: Record<string, unknown> | undefined, context: ToolContext): Promise<CallOutcome> {
    return this.current.router.call(name, args, context);
  }

  callEntry(entry: CatalogEntry, args: Record<string, unknown> | undefined, context: ToolContext): Promise<CallToolResult> {
    return this.current.router.callEntry(entry, args, context);
  }

  /** The servers' tools the view does not serve, each with the rule that hides it (after a listing). */
  hiddenTools(): HiddenTool[] {
    const { servers, readOnly } = this.current.view;
    return servers.flatMap((server, i) => hiddenTools(server.name, this.current.upstreams[i]?.cachedTools() ?? [], server.config, server.view, readOnly));
  }

  /** The tools tool pinning withholds from the view now (after a listing). */
  withheldTools(): ReturnType<ViewCatalog['withheldTools']> {
    return this.current.catalog.withheldTools();
  }

  /** Why a name the view does not serve is withheld by tool pinning, if it is (after a listing). */
  withheldTool(name: string): ReturnType<ViewCatalog['withheldTool']> {
    return this.current.catalog.withheldTool(name);
  }

  /** The approved tool definitions of these servers changed (an approval): the catalog is made again and clients told. */
  pinsChanged(servers: readonly string[]): void {
    if (this.current.view.servers.some((s) => servers.includes(s.name))) this.toolsChanged();
  }

  /** Code mode's run tool of this view (exposure: code) and its limits; undefined under any other exposure. */
  get codeRun(): { tool: string; limits: CodeLimits; settings: string } | undefined {
    const { view, catalog } = this.current;
    if (view.exposure !== 'code') return undefined;
    return { tool: metaToolNames(catalog.label, 'code').run!, ...this.codeLimits() };
  }

  /** The view's code limits (its `code`, else serve.code, else the defaults), and where they are set. */
  codeLimits(): { limits: CodeLimits; settings: string } {
    const { view } = this.current;
    return { limits: codeLimitsOf(view.code), settings: view.name ? `tool_views.${view.name}.code` : 'serve.code' };
  }

  /**
   * What a code-mode script of this client reaches, as `tools`: every tool it may call, and the
   * withheld tools its rules allow (a call of one is refused TOOL_NOT_APPROVED, as a direct call is).
   */
  async codeTools(access?: ToolAccess): Promise<CodeTools> {
    const { router, catalog } = this.current;
    const declared = await router.declaredTools(access);
    const held = catalog
      .withheldTools()
      .filter((w) => !access?.allows || access.allows({ name: w.name, readOnly: false }) || access.allows({ name: w.name, readOnly: true }))
      .map((w) => ({ group: w.server, name: bareName(w.name, w.server, catalog.separator), published: w.name }));
    const separator = catalog.separator;
    // What a name the tree does not have would be published under: the call is then judged as any call of it.
    const publishedFor = (group: string, name: string) => (group === OWN_GROUP || separator === null ? name : `${group}${separator ?? '__'}${name}`);
    return { declared, tree: toolTreeOf([...declared, ...held]), publishedFor, declarationLimits: declarationLimitsOf(this.current.view.code) };
  }

  /** The hot path, if it takes this call (CallRouter.fastCall). */
  fastCall(params: { name?: unknown; arguments?: unknown; _meta?: unknown }, access?: ToolAccess): FastCall | undefined {
    return this.current.router.fastCall(params, access);
  }

  async close(): Promise<void> {
    this.unwire.forEach((off) => off());
    this.options.onClose?.();
    if (this.options.ownsUpstreams) await Promise.allSettled(this.current.upstreams.map((u) => u.close()));
  }

  private toolsChanged(): void {
    // Only a catalog that was complete is made again at once: then calls were on the hot path and
    // go back to it. A terminal call that started one server must not start the others for it.
    const wasComplete = this.current.catalog.known !== undefined;
    this.current.catalog.invalidate();
    this.listChanged.emit();
    if (wasComplete) void this.current.catalog.current().catch(() => undefined);
  }
}
