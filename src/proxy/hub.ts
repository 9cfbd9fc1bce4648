import { ConditionSet } from '../conditions/rules.js';
import type { CompleteRequest, CompleteResult, RequestId } from '@modelcontextprotocol/server';
import { ToolError } from '../core/errors.js';
import { Listeners } from '../core/listeners.js';
import type { Logger } from '../core/logger.js';
import { CallRouter } from './calls/call-router.js';
import { ClientStates } from './client-state.js';
import { HookChain } from './calls/hooks.js';
import { PromptResourceRouter, type ItemGate } from './prompts-resources.js';
import type { LogParams, Upstream, UpstreamStatus } from './upstream/upstream.js';
import { ViewCatalog, type PinGate } from './catalog/view-catalog.js';
import { HubCatalogRole, type HubParts } from './hub-catalog.js';
import type { HubCalls, HubCatalog } from './hub-roles.js';
import type { ServerNotices } from './upstream/upstream-events.js';
import { differingMessage } from './pins/pins.js';
import { viewPrefixes, type ResolvedView } from './catalog/view.js';

export type { CallOutcome, ProxyCallContext } from './calls/call-router.js';
export type { HubCalls, HubCatalog, LookupReach, NamedEntry } from './hub-roles.js';
import type { UpstreamGate } from './calls/call-router.js';
import { declarationLimitsOf } from '../code/declaration-limits.js';

export type LogListener = (params: LogParams, related: RequestId | undefined) => void;

export interface HubOptions {
  view: ResolvedView;
  /** Where the hub's parts log (an input schema not enforced). */
  logger: Logger;
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
  private current!: HubParts & { passthrough: PromptResourceRouter };
  private readonly listChanged = new Listeners();
  private readonly promptsChanged = new Listeners();
  private readonly resourcesChanged = new Listeners();
  private readonly logs = new Listeners<[LogParams, RequestId | undefined]>();
  private readonly updates = new Listeners<[string]>();
  private unwire: (() => void)[] = [];
  /** What the view offers, and what a name is (./hub-catalog.ts). */
  readonly catalog: HubCatalog = new HubCatalogRole(() => this.current);
  /** Runs the view's calls (the router of the config served now). */
  readonly calls: HubCalls = {
    call: (name, args, context) => this.current.router.call(name, args, context),
    fastCall: (params, access) => this.current.router.fastCall(params, access),
  };
  /** What the view's clients are told. */
  readonly events: ServerNotices = {
    toolsChanged: this.listChanged,
    promptsChanged: this.promptsChanged,
    resourcesChanged: this.resourcesChanged,
    logs: this.logs,
    updates: this.updates,
  };

  constructor(private readonly options: HubOptions) {
    this.clients = new ClientStates([], async (uri) => (await this.passthrough.resourceOwner(uri))?.reads);
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
    const { logger } = this.options;
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
      conditions: ConditionSet.compile(`tool_views.${view.name}.conditions`, view.conditions),
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
    this.clients.retarget(upstreams.map((u) => u.reads));
  }

  /** Passes an upstream's events on to this hub's listeners. */
  private wire(upstream: Upstream): Upstream {
    const relays = this.options.relaysRequests;
    this.unwire.push(
      upstream.events.toolsChanged.on(() => this.toolsChanged()),
      upstream.events.promptsChanged.on(() => this.promptsChanged.emit()),
      upstream.events.resourcesChanged.on(() => this.resourcesChanged.emit()),
      // A shared connection's calls in flight may be another client's: relate logs only on our own.
      upstream.events.logs.on((params, related) => this.logs.emit(params, relays ? related : undefined)),
      upstream.events.updates.on((uri) => this.updates.emit(uri)),
    );
    return upstream;
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
      return owner.upstream.reads.complete({ ...params, ref: { ...ref, name: owner.name } });
    }
    const upstream = (await this.passthrough.templateOwner(ref.uri)) ?? (await this.passthrough.resourceOwner(ref.uri));
    if (!upstream) throw new ToolError('NOT_FOUND', `No resource template ${ref.uri}.`, { hint: 'Call resources/templates/list for the available templates.' });
    return upstream.reads.complete(params);
  }

  /** The client's roots changed: its servers are told (connections of its own only). */
  async rootsChanged(): Promise<void> {
    if (this.options.relaysRequests) await Promise.allSettled(this.current.upstreams.map((u) => u.reads.rootsChanged()));
  }

  status(): UpstreamStatus[] {
    return this.current.upstreams.map((u) => u.status());
  }

  /** Starts every upstream now instead of on first use (serve.eager), and makes what tools/list shows of them: a first listing finds it made. */
  async warmUp(): Promise<void> {
    await Promise.allSettled(this.current.upstreams.map((u) => u.listTools()));
    await this.catalog.list().catch(() => undefined);
  }

  /** The approved tool definitions of these servers changed (an approval): the catalog is made again and clients told. */
  pinsChanged(servers: readonly string[]): void {
    if (this.current.view.servers.some((s) => servers.includes(s.name))) this.toolsChanged();
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
