import type { CallToolResult, CompleteRequest, CompleteResult, JSONRPCMessage, RequestId, Tool } from '@modelcontextprotocol/server';
import { ToolError } from '../core/errors.js';
import { Listeners } from '../core/listeners.js';
import type { ExposureSummary, ToolContext } from '../tool/context.js';
import { CallRouter, type CallOutcome } from './call-router.js';
import type { CatalogEntry } from './catalog.js';
import { ClientStates } from './client-state.js';
import { HookChain } from './hooks.js';
import { PromptResourceRouter } from './prompts-resources.js';
import type { LogParams, Upstream, UpstreamStatus } from './upstream.js';
import { ViewCatalog } from './view-catalog.js';
import type { ResolvedView } from './view.js';

export type { CallOutcome } from './call-router.js';

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
  readonly view: ResolvedView;
  /** prompts/* and resources/* of the view's servers. */
  readonly passthrough: PromptResourceRouter;
  /** What each client of the view asked for: log level and subscriptions. */
  readonly clients: ClientStates;
  private readonly upstreams: Upstream[];
  private readonly catalog: ViewCatalog;
  private readonly router: CallRouter;
  private readonly listChanged = new Listeners();
  private readonly promptsChanged = new Listeners();
  private readonly resourcesChanged = new Listeners();
  private readonly logs = new Listeners<[LogParams, RequestId | undefined]>();
  private readonly updates = new Listeners<[string]>();
  private readonly unwire: (() => void)[] = [];

  constructor(private readonly options: HubOptions) {
    this.view = options.view;
    const { logger } = options.context;
    this.upstreams = options.view.servers.map((server) => this.wire(options.upstream(server)));
    const byServer = new Map(this.upstreams.map((u) => [u.name, u]));
    this.catalog = new ViewCatalog({
      view: options.view,
      sources: byServer,
      logger,
      groupSummaries: options.groupSummaries,
      ...(options.listWaitMs !== undefined ? { listWaitMs: options.listWaitMs } : {}),
      late: () => this.toolsChanged(),
    });
    this.router = new CallRouter({
      catalog: this.catalog,
      targets: byServer,
      hooks: new HookChain(options.view.hooks, options.baseDir),
      ...(options.view.name ? { view: options.view.name } : {}),
      meta: options.view.exposure !== 'direct',
      unenforced: (reason) => logger.warn(`an input schema is not enforced: ${reason}`),
    });
    this.passthrough = new PromptResourceRouter(
      options.view.servers.map(({ config, view }, i) => ({ upstream: this.upstreams[i]!, rules: [config.filter ?? [], view?.filter ?? []] })),
      options.view.separator,
    );
    this.clients = new ClientStates(this.upstreams, (uri) => this.passthrough.resourceOwner(uri));
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
    return this.upstreams.length > 0;
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
    if (this.options.relaysRequests) await Promise.allSettled(this.upstreams.map((u) => u.rootsChanged()));
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
    return (await this.catalog.exposure()).listed;
  }

  /** How tools/list is made now, and what it costs. */
  exposurePlan(): Promise<ExposureSummary> {
    return this.catalog.summary();
  }

  /** The full catalog, whatever the exposure. */
  catalogTools(): Promise<Tool[]> {
    return this.catalog.tools();
  }

  /** The server an exposed name belongs to, from the last complete catalog. */
  serverOf(name: string): string | undefined {
    const entry = this.catalog.known?.get(name);
    return entry?.kind === 'upstream' ? entry.server : undefined;
  }

  /** One entry of the catalog, found as soon as the server that has it answered. */
  entry(name: string): Promise<CatalogEntry | undefined> {
    return this.catalog.entry(name);
  }

  /** Every tool of the catalog, whatever tools/list shows (the terminal's `call` runs any of them). */
  names(): Promise<string[]> {
    return this.catalog.names();
  }

  call(name: string, args: Record<string, unknown> | undefined, context: ToolContext): Promise<CallOutcome> {
    return this.router.call(name, args, context);
  }

  callEntry(entry: CatalogEntry, args: Record<string, unknown> | undefined, context: ToolContext): Promise<CallToolResult> {
    return this.router.callEntry(entry, args, context);
  }

  /** The hot path (CallRouter.tryFastCall). */
  tryFastCall(
    params: { name?: unknown; arguments?: unknown },
    reply: (result: CallToolResult) => void,
    progress: (message: JSONRPCMessage) => void,
    related?: RequestId,
  ): { cancel(): void } | undefined {
    return this.router.tryFastCall(params, reply, progress, related);
  }

  async close(): Promise<void> {
    this.unwire.forEach((off) => off());
    if (this.options.ownsUpstreams) await Promise.allSettled(this.upstreams.map((u) => u.close()));
  }

  private toolsChanged(): void {
    this.catalog.invalidate();
    this.listChanged.emit();
    // Rebuilt right away (from the refreshed caches), so calls go back on the hot path.
    void this.catalog.current().catch(() => undefined);
  }
}
