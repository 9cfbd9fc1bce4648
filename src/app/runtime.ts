import { dirname } from 'node:path';
import { locateConfig, type ConfigSource } from '../config/locate.js';
import type { McpkitConfig } from '../config/schema.js';
import { NO_RECONNECT } from '../core/backoff.js';
import { createLogger, parseLogLevel, type Logger } from '../core/logger.js';
import { version as packageVersion } from '../core/version.js';
import type { ProxyHub } from '../proxy/hub.js';
import type { DownstreamRelay, Upstream, UpstreamStatus } from '../proxy/upstream.js';
import { DEFAULT_POLICY, SessionState, type Policy, type Surface, type ToolContext } from '../tool/context.js';
import type { AnyTool, ToolGroup } from '../tool/define.js';

/**
 * The composition root: what every call needs, built once per process. Front ends (oclif
 * commands, the fast paths, the MCP servers) create one runtime and ask it for contexts and
 * hubs; nothing below this layer reads flags, global state or the list of tool groups.
 */
export interface RuntimeOptions {
  configFlag?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  surface: Surface;
  policy?: Policy;
  /** A long-running process (serve): tools get a cache that lives as long as it. */
  longLived?: boolean;
  logger?: Logger;
  /** mcpkit's version, sent to upstream servers in initialize; read from package.json when absent. */
  version?: string;
  /** Where a long wait is announced (ToolContext.waiting); the log at info level when absent. */
  waiting?: (message: string) => void;
}

export interface HubOptions {
  /** Terminal commands show upstream stderr only when MCPKIT_LOG_LEVEL=debug; `serve` always forwards it. */
  quiet?: boolean;
  listWaitMs?: number;
}

export interface CallScope {
  session?: SessionState;
  /** The tool may create the config file (ToolDefinition.createsConfig): a missing named file is the defaults. */
  createsConfig?: boolean;
  signal?: AbortSignal;
  requestId?: string | number;
  progress?: ToolContext['progress'];
  emit?: ToolContext['emit'];
}

export class Runtime {
  readonly surface: Surface;
  readonly policy: Policy;
  readonly configLocation: ConfigSource;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly logger: Logger;
  private readonly cache?: Map<string, unknown>;
  private readonly options: RuntimeOptions;
  private loading?: Promise<McpkitConfig>;
  /** Connections shared by every hub `hubFor` makes (serve: all views, all sessions). */
  private readonly shared = new Map<string, Upstream>();
  private readonly hubs = new Map<string, Promise<ProxyHub>>();

  constructor(options: RuntimeOptions) {
    this.options = options;
    this.surface = options.surface;
    this.policy = options.policy ?? DEFAULT_POLICY;
    this.env = options.env ?? process.env;
    this.cwd = options.cwd ?? process.cwd();
    this.configLocation = locateConfig({ flag: options.configFlag, env: this.env, cwd: this.cwd });
    this.logger = options.logger ?? createLogger(parseLogLevel(this.env.MCPKIT_LOG_LEVEL));
    if (options.longLived) this.cache = new Map();
  }

  /** The same process with a narrower policy (decided once the config is read: serve --http without a token). */
  withPolicy(policy: Policy): Runtime {
    const narrowed = new Runtime({ ...this.options, policy });
    narrowed.loading = this.loading;
    return narrowed;
  }

  /** The config, loaded once (yaml and the checks load only when something first needs it). */
  config(): Promise<McpkitConfig> {
    return (this.loading ??= import('../config/load.js').then(({ loadConfig }) => loadConfig(this.configLocation, this.env)));
  }

  private async configOrDefaults(): Promise<McpkitConfig> {
    try {
      return await this.config();
    } catch (error) {
      if ((error as { code?: string }).code !== 'CONFIG_NOT_FOUND') throw error;
      return (await import('../config/schema.js')).defaultConfig();
    }
  }

  version(): string {
    return this.options.version ?? packageVersion();
  }

  /** The context a handler gets, for one client's session (a new one when not given). */
  context(scope: CallScope = {}): ToolContext {
    return {
      config: scope.createsConfig ? () => this.configOrDefaults() : () => this.config(),
      configLocation: this.configLocation,
      env: this.env,
      cwd: this.cwd,
      logger: this.logger,
      waiting: this.options.waiting ?? ((message) => this.logger.info(message)),
      surface: this.surface,
      policy: this.policy,
      session: scope.session ?? new SessionState(),
      ...(this.cache ? { cache: this.cache } : {}),
      views: { with: (view, use, options) => this.withHub(view, use, options) },
      now: () => new Date(),
      ...(scope.signal ? { signal: scope.signal } : {}),
      ...(scope.requestId !== undefined ? { requestId: scope.requestId } : {}),
      ...(scope.progress ? { progress: scope.progress } : {}),
      ...(scope.emit ? { emit: scope.emit } : {}),
    };
  }

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
    const [config, { unitName }] = await Promise.all([this.config(), import('../config/problems.js')]);
    for (const [unit, lines] of Object.entries(config.unusable ?? {})) {
      this.logger.warn(`${unitName(unit)} cannot be used; the rest is served:\n${lines.map((l) => `  ${l}`).join('\n')}`);
    }
    const ctx = this.context();
    for (const group of await this.groups()) await group.onServe?.(ctx);
  }

  /** A view's hub with upstream connections of its own; the caller closes it. */
  openHub(view: string | undefined, options: HubOptions = {}): Promise<ProxyHub> {
    return this.makeHub(view, options, undefined);
  }

  /** Opens a view, runs `use`, and closes the view's connections whatever happens. */
  async withHub<T>(view: string | undefined, use: (hub: ProxyHub) => Promise<T>, options: HubOptions = { quiet: true }): Promise<T> {
    const hub = await this.openHub(view, options);
    try {
      return await use(hub);
    } finally {
      await hub.close();
    }
  }

  /** The hub `serve` keeps for a view, made once; every view shares the upstream connections. */
  hubFor(view: string | undefined): Promise<ProxyHub> {
    const key = view ?? '';
    let hub = this.hubs.get(key);
    if (!hub) {
      hub = this.makeHub(view, {}, this.shared);
      this.hubs.set(key, hub);
    }
    return hub;
  }

  /**
   * A view's hub for one client that declared sampling, elicitation or roots: connections of its
   * own, so that what a server asks during a call reaches that client and no other. Closed by
   * the caller when the client goes.
   */
  sessionHub(view: string | undefined, downstream: DownstreamRelay): Promise<ProxyHub> {
    return this.makeHub(view, {}, undefined, downstream);
  }

  /**
   * Whether a view has upstream servers, from the config alone (no connection): it decides which
   * capabilities `serve` declares before anything is connected. A config that does not load
   * counts as none; the first request reports the problem.
   */
  async viewHasServers(view: string | undefined): Promise<boolean> {
    const config = await this.config().catch(() => undefined);
    if (!config) return false;
    const spec = view === undefined ? undefined : config.tool_views[view];
    if (view !== undefined && !spec) return false;
    const names = spec ? (Array.isArray(spec.servers) ? spec.servers : Object.keys(spec.servers ?? {})) : Object.keys(config.mcp_servers);
    return names.some((name) => config.mcp_servers[name] !== undefined && config.mcp_servers[name]!.disabled !== true);
  }

  /** The hub for one client of a view: its own when it brings a relay (sampling, elicitation, roots), else the shared one. */
  clientHub(view: string | undefined, downstream: DownstreamRelay | undefined): Promise<ProxyHub> {
    return downstream ? this.sessionHub(view, downstream) : this.hubFor(view);
  }

  upstreamStatus(): UpstreamStatus[] {
    return [...this.shared.values()].map((u) => u.status());
  }

  /** Closes the shared upstream connections (serve's end), so no child process outlives us. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.shared.values()].map((u) => u.close()));
  }

  private async makeHub(
    view: string | undefined,
    options: HubOptions,
    upstreams: Map<string, Upstream> | undefined,
    downstream?: DownstreamRelay,
  ): Promise<ProxyHub> {
    const [config, tools, { ProxyHub }, { resolveView }] = await Promise.all([
      this.config(),
      this.allTools(),
      import('../proxy/hub.js'),
      import('../proxy/view.js'),
    ]);
    const resolved = resolveView(config, view, tools, this.policy, this.env);
    const stderr = options.quiet && this.env.MCPKIT_LOG_LEVEL !== 'debug' ? () => {} : undefined;
    return new ProxyHub({
      view: resolved,
      context: this.context(),
      version: this.version(),
      listWaitMs: options.listWaitMs,
      stderr,
      upstreams,
      baseDir: dirname(this.configLocation.path),
      ...(downstream ? { downstream } : {}),
      // A one-shot command reports a server that is down; only a long-running process reconnects.
      ...(this.cache ? {} : { backoff: NO_RECONNECT }),
    });
  }
}

export function createRuntime(options: RuntimeOptions): Runtime {
  return new Runtime(options);
}
