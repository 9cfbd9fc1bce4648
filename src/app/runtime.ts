import { redact } from '../core/redact.js';
import { DEFAULT_PIN_MODE } from '../config/schema/defaults.js';
import { dirname, resolve } from 'node:path';
import { ownFiles, type OwnFiles } from '../config/files/own-files.js';
import { locateConfig, type ConfigSource } from '../config/locate.js';
import type { McpkitConfig, ServerConfig } from '../config/schema/schema.js';
import { createLogger, parseLogLevel, type Logger } from '../core/logger.js';
import { version as packageVersion } from '../core/version.js';
import type { ProxyHub } from '../proxy/hub.js';
import type { ClientEra } from '../proxy/eras/era.js';
import type { FileIndexes } from '../retrieve/file-index.js';
import type { PinKeeper } from '../proxy/pins/pin-keeper.js';
import type { DownstreamRelay, Upstream, UpstreamStatus } from '../proxy/upstream/upstream.js';
import type { ResolvedView } from '../proxy/catalog/view.js';
import { LiveConfig, type ConfigStatus, type ReloadReport } from './live-config.js';
import { LiveHubs, pooled, type LiveHub } from './live-hubs.js';
import { UpstreamLimits } from './upstream-limits.js';
import { UpstreamFactory } from './upstream-factory.js';
import { UpstreamPools } from './upstream-pools.js';
import { ClientHubs } from './client-hubs.js';
import { DEFAULT_POLICY, type OneOffOptions, type OneOffServer, type Policy, type Surface, type ToolContext } from '../tool/context.js';
import type { AnyTool, ToolGroup } from '../tool/define.js';
import type { CallScope, OpenHubOptions, RuntimeOptions, ViewTarget, WaitKind } from './runtime-options.js';
import { toolContext, type ContextParts } from './tool-context.js';

export type { CallScope, OpenHubOptions, RuntimeOptions, ViewTarget } from './runtime-options.js';

export { RETIRE_GRACE_MS } from './upstream-pools.js';

/**
 * The composition root: what every call needs, built once per process. Front ends (oclif
 * commands, the fast paths, the MCP servers) create one runtime and ask it for contexts and
 * hubs; nothing below this layer reads flags, the environment, global state or the list of tool
 * groups: it is all passed down from here.
 */
export class Runtime {
  readonly surface: Surface;
  readonly configLocation: ConfigSource;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly logger: Logger;
  private readonly cache?: Map<string, unknown>;
  private readonly options: RuntimeOptions;
  /** The one owner of the current config (./live-config.ts). */
  readonly live: LiveConfig;
  private policyNow: Policy;
  /** The hubs a reload re-points (serve's). */
  private readonly liveHubs: LiveHubs;
  private readonly upstreams: UpstreamFactory;
  /** The connections `serve` shares, one set per client era, and those a reload is retiring. */
  private readonly pools = new UpstreamPools();
  private readonly sharedHubs = new Map<string, Promise<ProxyHub>>();
  /** serve.upstream_limits, in every process: a terminal's calls (a code run's, a composite's, the daemon's) are held to them as an agent's are. */
  private readonly upstreamLimits?: UpstreamLimits;

  constructor(options: RuntimeOptions) {
    this.options = options;
    this.surface = options.surface;
    this.policyNow = options.policy ?? DEFAULT_POLICY;
    this.env = options.env ?? process.env;
    this.cwd = options.cwd ?? process.cwd();
    this.configLocation = locateConfig({ flag: options.configFlag, env: this.env, cwd: this.cwd });
    this.logger = options.logger ?? createLogger(parseLogLevel(this.env.MCPKIT_LOG_LEVEL));
    if (options.longLived) this.cache = new Map();
    this.upstreamLimits = new UpstreamLimits(() => this.live.loaded);
    this.live = new LiveConfig({
      location: this.configLocation,
      env: this.env,
      logger: this.logger,
      ...(options.config ? { initial: options.config } : {}),
      ...(options.announce ? { announce: options.announce } : {}),
    });
    this.liveHubs = new LiveHubs({
      config: () => this.config(),
      tools: () => this.allTools(),
      policy: () => this.policy,
      env: this.env,
      logger: this.logger,
      forgetView: (view) => {
        for (const era of ['legacy', 'modern'] as const) this.sharedHubs.delete(`${era}:${view}`);
      },
    });
    this.upstreams = new UpstreamFactory({
      surface: this.surface,
      env: this.env,
      logger: this.logger,
      version: this.version(),
      longLived: options.longLived === true,
      references: () => this.live.loaded?.references,
      ...(options.secretVariables ? { secrets: options.secretVariables } : {}),
      waiting: (message) => this.waiting(message, 'slow-server'),
      ...(options.serverStderr ? { serverStderr: options.serverStderr } : {}),
      ownFiles: () => this.ownFiles(),
      requestStateTag: () => this.store?.holder,
    });
  }

  /** The current config (yaml and the checks load only when something first needs it). */
  config(): Promise<McpkitConfig> {
    return this.live.get();
  }

  /** The policy: fixed for a one-shot command; serve decides it anew from each config it reloads. */
  get policy(): Policy {
    return this.policyNow;
  }

  /**
   * From now on a `reload` serves what the config file says (serve): `policyFor` decides the
   * policy from a config (a throw keeps the last good config), and every live hub is re-pointed.
   */
  followConfig(policyFor: (config: McpkitConfig) => Promise<Policy>): Promise<void> {
    let next: Policy | undefined;
    this.followed = true;
    return (this.following = this.live.follow(
      async (config) => void (next = await policyFor(config)),
      async (_before, _after, plan) => {
        if (next) this.policyNow = next;
        await this.liveHubs.applyReload(plan, this.pools);
      },
    ));
  }

  /** Reads the config and the tool pins again and serves them: hubs whose servers' pins changed (an approval) list again. */
  async reload(reason: string): Promise<ReloadReport> {
    // A reload asked for while following is being set up waits for it: it needs the text served and the apply step.
    await this.following;
    const report = await this.live.reload(reason);
    this.liveHubs.pinsChanged(this.pinKeeper?.refresh() ?? []);
    return report;
  }

  /** The process's tool pins (proxy/pins/pin-keeper.ts), read on first use from the lock file beside the config. */
  private async pins(): Promise<PinKeeper> {
    if (this.pinKeeper) return this.pinKeeper;
    const imports = [import('../proxy/pins/pin-keeper.js'), import('../config/files/pin-file.js'), import('../proxy/pins/pins.js')] as const;
    const [{ PinKeeper }, { pinFilePath }, { mayTrustFirstUse }] = await Promise.all(imports);
    const say = this.options.announce ?? ((line: string) => this.waiting(line));
    const trust = (server: string) => mayTrustFirstUse(this.live.loaded?.mcp_servers[server]);
    const fromLock = () => this.surface === 'mcp' && this.live.loaded?.serve.list_from_lock === true;
    return (this.pinKeeper ??= new PinKeeper(pinFilePath(this.configLocation.path), this.logger, say, trust, fromLock));
  }

  configStatus(): ConfigStatus {
    return this.live.status();
  }

  private async configOrDefaults(): Promise<McpkitConfig> {
    try {
      return await this.config();
    } catch (error) {
      if ((error as { code?: string }).code !== 'CONFIG_NOT_FOUND') throw error;
      return (await import('../config/schema/schema.js')).defaultConfig();
    }
  }

  version(): string {
    return this.options.version ?? packageVersion();
  }

  /** mcpkit's own files and folders under the current config: its config, pins, audit log (flag or serve.audit_log), state, cache. */
  ownFiles(): OwnFiles {
    const configured = this.live.loaded?.serve.audit_log;
    const auditLog = this.options.auditLog ?? (configured ? resolve(dirname(this.configLocation.path), configured) : undefined);
    return ownFiles({ configPath: this.configLocation.path, env: this.env, ...(auditLog ? { auditLog } : {}) });
  }

  /** The context a handler gets, for one client's session (a new one when not given). */
  context(scope: CallScope = {}): ToolContext {
    return toolContext(this, scope, this.contextParts);
  }

  /** What a tool's context needs of this runtime that is its own (./tool-context.ts). */
  private readonly contextParts: ContextParts = {
    configOrDefaults: () => this.configOrDefaults(),
    waiting: (message) => this.waiting(message),
    lastListing: (name, config) => this.upstreams.lastListing(name, config),
    followed: () => this.followed,
    cache: () => this.cache,
  };

  /** The groups this runtime serves (the policy's choice). */
  async groups(): Promise<readonly ToolGroup[]> {
    const { toolGroups } = await import('../tools/index.js');
    const chosen = this.policy.groups;
    return chosen ? toolGroups.filter((g) => chosen.includes(g.name)) : toolGroups;
  }

  /** Every tool of mcpkit's own, whatever the policy: what the terminal's `call` may run. */
  async allTools(): Promise<readonly AnyTool[]> {
    return (await import('../tools/index.js')).allTools;
  }

  /** mcpkit's own tools as an MCP client is offered them under this config and policy. */
  async offeredTools(): Promise<AnyTool[]> {
    const [config, tools, { applyPolicy }] = await Promise.all([this.config(), this.allTools(), import('../tool/policy.js')]);
    return applyPolicy(tools, this.policy, config, this.env);
  }

  /**
   * Work `serve` does before answering anything (a throw stops it): the config must load (a file
   * that is unusable as a whole fails now, not on every request), the parts of it that were set
   * aside for their problems are named once on stderr, and each served group does its start-up.
   */
  async startServing(): Promise<void> {
    const [config, { setAsideWarning }] = await Promise.all([this.config(), import('../config/check/problems.js')]);
    for (const [unit, lines] of Object.entries(config.unusable ?? {})) this.logger.warn(setAsideWarning(unit, lines));
    const ctx = this.context();
    for (const group of await this.groups()) await group.onServe?.(ctx);
  }

  /**
   * The one way to a hub. Shared (serve): one per view of the config for the process, over the
   * connections all views share. Otherwise the hub has connections of its own, which the caller
   * closes with it: a terminal command's, or one client's that declared sampling, elicitation or
   * roots (`downstream`), so that what a server asks during a call reaches that client and no other.
   */
  openHub(view: ViewTarget, options: OpenHubOptions = {}): Promise<ProxyHub> {
    if (!options.shared || typeof view === 'object') return this.makeHub(view, options, new Map(), true);
    const era = options.era ?? 'legacy';
    const key = `${era}:${view ?? ''}`;
    let hub = this.sharedHubs.get(key);
    if (!hub) {
      hub = this.makeHub(view, { ...options, era }, this.pools.shared[era], false);
      this.sharedHubs.set(key, hub);
    }
    return hub;
  }

  /**
   * Starts a view's shared connections of one client era now (serve over stdio: its one client is
   * about to list them), in the background; what fails is reported when it is used.
   */
  warm(view: string | undefined, era: ClientEra): void {
    this.warming.set(
      era,
      this.openHub(view, { shared: true, era })
        .then((hub) => hub.warmUp())
        .catch(() => undefined),
    );
  }

  private readonly warming = new Map<ClientEra, Promise<void>>();

  /**
   * Puts the shared connections of a client era to sleep once warming them is done (they
   * reconnect on their next use): serve over stdio warmed the era its client did not speak.
   */
  async sleepEra(era: ClientEra): Promise<void> {
    await this.warming.get(era);
    await Promise.allSettled([...this.pools.shared[era].values()].map((upstream) => upstream.sleep()));
  }

  /** serve.store: the upstreams' limits are kept there from now on, across replicas (serve --http). */
  useStore(store: import('../store/shared-store.js').SharedStore): void {
    this.upstreamLimits?.useStore(store);
    this.store = store;
  }

  private store?: import('../store/shared-store.js').SharedStore;

  /** serve.store, when serve --http opened one: what the replicas share (limits, tasks, questions). */
  get sharedStore(): import('../store/shared-store.js').SharedStore | undefined {
    return this.store;
  }

  /** Opens a view, runs `use`, and closes the view's connections whatever happens. */
  async withHub<T>(view: ViewTarget, use: (hub: ProxyHub) => Promise<T>, options: OpenHubOptions = { quiet: true }): Promise<T> {
    if (this.options.warm && typeof view !== 'object' && !options.downstream) return use(await this.openHub(view, { shared: true, era: 'legacy' }));
    const hub = await this.openHub(view, { ...options, shared: false });
    try {
      return await use(hub);
    } finally {
      await hub.close();
    }
  }

  /**
   * The hub one client of a view served by `serve` is answered from: the view's shared one, or
   * connections of its own (a relay of what servers ask, or its own credentials): ./client-hubs.ts.
   */
  clientHub(view: string | undefined, downstream: DownstreamRelay | undefined, caller: { client?: string; era?: ClientEra } = {}): Promise<ProxyHub> {
    return this.clientHubs.hubOf(view, downstream, caller);
  }

  private readonly clientHubs = new ClientHubs({
    openHub: (view, options) => this.openHub(view, options),
    config: () => this.config(),
    loaded: () => this.live.loaded,
    logger: () => this.logger,
    perClient: () => this.options.perClient === true,
  });

  /** One server of the config for a single look, never reconnecting, quiet; closed after `use` (ToolContext.servers). */
  withServer<T>(name: string, config: ServerConfig, use: (server: OneOffServer) => Promise<T>, options: OneOffOptions = {}): Promise<T> {
    return this.upstreams.withOne(name, config, use, options);
  }

  /**
   * Whether a view has upstream servers, from the config alone (no connection): it decides which
   * capabilities `serve` declares before anything is connected. A config that does not load
   * counts as none; the first request reports the problem.
   */
  async viewHasServers(view: string | undefined): Promise<boolean> {
    const [config, { viewServers }] = await Promise.all([this.config().catch(() => undefined), import('../proxy/catalog/view.js')]);
    return config !== undefined && (viewServers(config, view)?.length ?? 0) > 0;
  }

  upstreamStatus(): UpstreamStatus[] {
    const config = this.live.loaded;
    const mode = (name: string) => config?.mcp_servers[name]?.pinning ?? config?.pinning ?? DEFAULT_PIN_MODE;
    return this.pools.status((name, tools) => this.pinKeeper?.withheldCount(name, tools, mode(name)));
  }

  /** What the process keeps in memory for tools (the daemon's status): the file index's bytes, when there is one. */
  async cacheSummary(): Promise<{ entries: number; roots?: ReturnType<FileIndexes['roots']> } & Partial<ReturnType<FileIndexes['memory']>>> {
    const { FILE_INDEXES_KEY } = await import('../tools/retrieve/shared.js');
    const indexes = (await this.cache?.get(FILE_INDEXES_KEY)) as FileIndexes | undefined;
    return { entries: this.cache?.size ?? 0, ...(indexes ? { ...indexes.memory(), roots: indexes.roots() } : {}) };
  }

  /** Closes the shared upstream connections (serve's end): no child process outlives us. */
  async close(): Promise<void> {
    await this.pools.close();
  }

  private pinKeeper?: PinKeeper;
  /** Set once serve follows the config: its hubs are then live. */
  private followed = false;
  private following?: Promise<void>;

  private waiting(message: string, kind?: WaitKind): void {
    // A retry line names what it retries (a registry URL with ?key=${KEY}): masked like every message.
    if (this.options.waiting) this.options.waiting(redact(message), kind);
    else this.logger.info(message);
  }

  private async makeHub(view: ViewTarget, options: OpenHubOptions, pool: Map<string, Upstream>, owns: boolean): Promise<ProxyHub> {
    // A reload that ran while this hub was being made did not see it: it is re-pointed below.
    const generation = this.live.currentGeneration;
    const [{ ProxyHub }, { Upstream }, resolved, pins] = await Promise.all([
      import('../proxy/hub.js'),
      import('../proxy/upstream/upstream.js'),
      this.resolve(view),
      this.pins(),
    ]);
    // Only mcpkit's own tools are described by their group (all of them: a reload may add a group's tools).
    const groups = resolved.local.length || this.followed ? await this.groups() : [];
    const { serverForCaller } = await import('../config/schema/client-credentials.js');
    // Each connection is made for the hub's caller as the config says now: its own credentials, or refused a per_client server.
    const make = (server: ResolvedView['servers'][number]) =>
      this.upstreams.make(Upstream, serverForCaller(server, this.clientHubs.identityOf(options.client), this.options.perClient === true), options);
    // Synchronously from here: a shared server is made once, whichever view asks first.
    for (const server of resolved.servers) pooled(pool, server, make);
    const live = this.followed && typeof view !== 'object' && (options.shared || options.downstream || options.client !== undefined);
    let entry: LiveHub | undefined;
    const hub = new ProxyHub({
      view: resolved,
      context: this.context(),
      upstream: (server) => pool.get(server.name)!,
      ownsUpstreams: owns,
      relaysRequests: options.downstream !== undefined,
      groupSummaries: new Map(groups.map((g) => [g.name, g.summary])),
      ...(options.listWaitMs !== undefined ? { listWaitMs: options.listWaitMs } : {}),
      baseDir: dirname(this.configLocation.path),
      onClose: () => {
        if (entry) this.liveHubs.delete(entry);
        options.onClose?.();
      },
      pins,
      ...(this.upstreamLimits ? { upstreamGate: (server: string) => this.upstreamLimits!.gateOf(server) } : {}),
    });
    // serve's hubs live on and follow the config; a terminal command's or a filter's do not.
    if (live) {
      this.liveHubs.add((entry = { hub, view: view as string | undefined, pool, make }));
      if (this.live.currentGeneration !== generation) await this.liveHubs.repoint(entry);
    }
    return hub;
  }

  private async resolve(view: ViewTarget): Promise<ResolvedView> {
    if (typeof view === 'object') return view;
    const [config, tools, { resolveView }] = await Promise.all([this.config(), this.allTools(), import('../proxy/catalog/view.js')]);
    return resolveView(config, view, tools, this.policy, this.env);
  }
}

export function createRuntime(options: RuntimeOptions): Runtime {
  return new Runtime(options);
}

export { readConfig } from './read-config.js';
