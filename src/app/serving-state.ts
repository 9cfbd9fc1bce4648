import { dirname } from 'node:path';
import type { ConfigSource } from '../config/locate.js';
import type { ReloadPlan } from '../config/reload-plan.js';
import type { Logger } from '../core/logger.js';
import type { ClientEra } from '../proxy/eras/era.js';
import type { ProxyHub } from '../proxy/hub.js';
import type { ResolvedView } from '../proxy/catalog/view.js';
import type { DownstreamRelay, UpstreamStatus } from '../proxy/upstream/upstream.js';
import type { SharedStore } from '../store/shared-store.js';
import { RunBudget } from '../code/run-budget.js';
import type { AnyTool, ToolGroup } from '../tool/define.js';
import type { Policy } from '../tool/context.js';
import { ClientHubs } from './client-hubs.js';
import type { ConfigFollowers, ConfigState } from './config-state.js';
import { LiveHubs, pooled, type LiveHub } from './live-hubs.js';
import type { OpenHubOptions, RuntimeOptions, ViewTarget } from './runtime-options.js';
import type { UpstreamFactory } from './upstream-factory.js';
import { UpstreamLimits } from './upstream-limits.js';
import { Pool, UpstreamPools } from './upstream-pools.js';

/** What the serving state needs of its runtime (./runtime.ts). */
export interface ServingNeeds {
  configs: ConfigState;
  upstreams: UpstreamFactory;
  configLocation: ConfigSource;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  options: Pick<RuntimeOptions, 'perClient' | 'longLived'>;
  groups(): Promise<readonly ToolGroup[]>;
  allTools(): Promise<readonly AnyTool[]>;
  policy(): Policy;
}

/**
 * The serving state of one runtime: the connections `serve` shares (one set per client era, and
 * those a reload is retiring), the hubs made over them and the hubs a reload re-points, the
 * store the replicas share, the questions put to clients, and the budget of code runs. Each is
 * made here, once per runtime, and nowhere else.
 */
export class ServingState implements ConfigFollowers {
  private readonly pools = new UpstreamPools();
  private readonly sharedHubs = new Map<string, Promise<ProxyHub>>();
  /** The hubs a reload re-points (serve's). */
  private readonly liveHubs: LiveHubs;
  private readonly clientHubs: ClientHubs;
  /** serve.upstream_limits, in the processes that serve (a one-shot command makes one call). */
  private readonly upstreamLimits?: UpstreamLimits;
  private shared?: SharedStore;
  /** What the front ends above keep for this runtime's life (the questions put to clients: mcp/dispatcher.ts), by their key. */
  private readonly frontEnds = new Map<symbol, unknown>();
  private budget?: RunBudget;

  constructor(private readonly needs: ServingNeeds) {
    const { configs } = needs;
    // In every process: a terminal's calls (a code run's, a composite's, the daemon's) are held to them as an agent's are.
    this.upstreamLimits = new UpstreamLimits(() => configs.live.loaded);
    this.liveHubs = new LiveHubs({
      config: () => configs.config(),
      tools: () => needs.allTools(),
      policy: () => needs.policy(),
      env: needs.env,
      logger: needs.logger,
      forgetView: (view) => {
        for (const pool of this.pools.sharedPools) this.sharedHubs.delete(`${pool.era}:${view}`);
      },
    });
    this.clientHubs = new ClientHubs({
      openHub: (view, options) => this.openHub(view, options),
      config: () => configs.config(),
      loaded: () => configs.live.loaded,
      logger: () => needs.logger,
      perClient: () => needs.options.perClient === true,
    });
  }

  /**
   * The one way to a hub. Shared (serve): one per view of the config for the process, over the
   * connections all views share. Otherwise the hub has connections of its own, which the caller
   * closes with it: a terminal command's, or one client's that declared sampling, elicitation or
   * roots (`downstream`), so that what a server asks during a call reaches that client and no other.
   */
  openHub(view: ViewTarget, options: OpenHubOptions = {}): Promise<ProxyHub> {
    if (!options.shared || typeof view === 'object') return this.makeHub(view, options, new Pool(options.era), true);
    const pool = this.pools.shared[options.era ?? 'legacy'];
    const key = `${pool.era}:${view ?? ''}`;
    let hub = this.sharedHubs.get(key);
    if (!hub) {
      hub = this.makeHub(view, options, pool, false);
      this.sharedHubs.set(key, hub);
    }
    return hub;
  }

  /**
   * The hub one client of a view served by `serve` is answered from: the view's shared one, or
   * connections of its own (a relay of what servers ask, or its own credentials): ./client-hubs.ts.
   */
  clientHub(view: string | undefined, downstream: DownstreamRelay | undefined, caller: { client?: string; era?: ClientEra } = {}): Promise<ProxyHub> {
    return this.clientHubs.hubOf(view, downstream, caller);
  }

  /**
   * Starts the shared connections of these views for one client era now, and makes what each
   * lists (serve's start: serve.eager), in the background; what fails is reported when it is used.
   * Settles once each server has connected or failed.
   */
  warm(views: readonly (string | undefined)[], era: ClientEra): Promise<void> {
    const warmed = views.map((view) =>
      this.openHub(view, { shared: true, era })
        .then((hub) => hub.warmUp())
        .catch(() => undefined),
    );
    return Promise.all(warmed).then(() => undefined);
  }

  /** serve.store, handed over once by serve --http when it opened one: the upstreams' limits are kept there from now on, across replicas. */
  useStore(store: SharedStore): void {
    this.upstreamLimits?.useStore(store);
    this.shared = store;
  }

  /** serve.store, when serve --http opened one: what the replicas share (limits, tasks, questions). */
  get store(): SharedStore | undefined {
    return this.shared;
  }

  /**
   * Per-runtime state of a front end above this layer (the open questions of mcp/dispatcher.ts):
   * made once by `make` on first use, under the front end's own key, and kept as long as the runtime.
   */
  kept<T>(key: symbol, make: () => T): T {
    if (!this.frontEnds.has(key)) this.frontEnds.set(key, make());
    return this.frontEnds.get(key) as T;
  }

  /** The code runs in flight (code/run-budget.ts): one budget across serve's clients, views and transports. */
  runBudget(): RunBudget {
    return (this.budget ??= new RunBudget());
  }

  upstreamStatus(): UpstreamStatus[] {
    return this.pools.status((name, tools) => this.needs.configs.withheldCount(name, tools));
  }

  /**
   * Whether a view has upstream servers, from the config alone (no connection): it decides which
   * capabilities `serve` declares before anything is connected. A config that does not load
   * counts as none; the first request reports the problem.
   */
  async viewHasServers(view: string | undefined): Promise<boolean> {
    const [config, { viewServers }] = await Promise.all([this.needs.configs.config().catch(() => undefined), import('../proxy/catalog/view.js')]);
    return config !== undefined && (viewServers(config, view)?.length ?? 0) > 0;
  }

  applyReload(plan: ReloadPlan): Promise<void> {
    return this.liveHubs.applyReload(plan, this.pools);
  }

  pinsChanged(servers: readonly string[]): void {
    this.liveHubs.pinsChanged(servers);
  }

  /** Closes the shared upstream connections and the clients' own (serve's end): no child process outlives us. */
  async close(): Promise<void> {
    await Promise.all([this.pools.close(), this.clientHubs.close()]);
  }

  private async makeHub(view: ViewTarget, options: OpenHubOptions, pool: Pool, owns: boolean): Promise<ProxyHub> {
    const { configs, upstreams } = this.needs;
    // A reload that ran while this hub was being made did not see it: it is re-pointed below.
    const generation = configs.live.currentGeneration;
    const [{ ProxyHub }, { Upstream }, resolved, pins] = await Promise.all([
      import('../proxy/hub.js'),
      import('../proxy/upstream/upstream.js'),
      this.resolve(view),
      configs.pins(),
    ]);
    // Only mcpkit's own tools are described by their group (all of them: a reload may add a group's tools).
    const groups = resolved.local.length || configs.followed ? await this.needs.groups() : [];
    const { serverForCaller } = await import('../config/schema/client-credentials.js');
    // Each connection is made for the hub's caller as the config says now (its own credentials, or
    // refused a per_client server), and for the era of the pool it goes into.
    const make = (server: ResolvedView['servers'][number]) =>
      upstreams.make(Upstream, serverForCaller(server, this.clientHubs.identityOf(options.client), this.needs.options.perClient === true), {
        ...options,
        era: pool.era,
      });
    // Synchronously from here: a shared server is made once, whichever view asks first.
    for (const server of resolved.servers) pooled(pool, server, make);
    const live = configs.followed && typeof view !== 'object' && (options.shared || options.downstream || options.client !== undefined);
    let entry: LiveHub | undefined;
    const limits = this.upstreamLimits;
    const hub = new ProxyHub({
      view: resolved,
      logger: this.needs.logger,
      upstream: (server) => pool.get(server.name)!,
      ownsUpstreams: owns,
      relaysRequests: options.downstream !== undefined,
      groupSummaries: new Map(groups.map((g) => [g.name, g.summary])),
      ...(options.listWaitMs !== undefined ? { listWaitMs: options.listWaitMs } : {}),
      baseDir: dirname(this.needs.configLocation.path),
      onClose: () => {
        if (entry) this.liveHubs.delete(entry);
        options.onClose?.();
      },
      pins,
      ...(limits ? { upstreamGate: (server: string) => limits.gateOf(server) } : {}),
    });
    // serve's hubs live on and follow the config; a terminal command's or a filter's do not.
    if (live) {
      this.liveHubs.add((entry = { hub, view: view as string | undefined, pool, make }));
      if (configs.live.currentGeneration !== generation) await this.liveHubs.repoint(entry);
    }
    return hub;
  }

  private async resolve(view: ViewTarget): Promise<ResolvedView> {
    if (typeof view === 'object') return view;
    const [config, tools, { resolveView }] = await Promise.all([this.needs.configs.config(), this.needs.allTools(), import('../proxy/catalog/view.js')]);
    return resolveView(config, view, tools, this.needs.policy(), this.needs.env);
  }
}
