import { redact } from '../core/redact.js';
import { locateConfig, type ConfigSource } from '../config/locate.js';
import type { McpkitConfig, ServerConfig } from '../config/schema/schema.js';
import { createLogger, parseLogLevel, type Logger } from '../core/logger.js';
import { version as packageVersion } from '../core/version.js';
import type { ProxyHub } from '../proxy/hub.js';
import type { FileIndexes } from '../retrieve/file-index.js';
import { UpstreamFactory } from './upstream-factory.js';
import type { OneOffOptions, OneOffServer, Policy, Surface, ToolContext } from '../tool/context.js';
import type { AnyTool, ToolGroup } from '../tool/define.js';
import type { CallScope, OpenHubOptions, RuntimeOptions, ViewTarget, WaitKind } from './runtime-options.js';
import { toolContext, type ContextParts } from './tool-context.js';
import { ConfigState } from './config-state.js';
import { ServingState } from './serving-state.js';

export type { CallScope, OpenHubOptions, RuntimeOptions, ViewTarget } from './runtime-options.js';

export { RETIRE_GRACE_MS } from './upstream-pools.js';

/**
 * The composition root: what every call needs, built once per process. Front ends (oclif
 * commands, the fast paths, the MCP servers) create one runtime and ask it for contexts and
 * hubs; nothing below this layer reads flags, the environment, global state or the list of tool
 * groups: it is all passed down from here. Its state is in two roles: the config's
 * (`configs`, ./config-state.ts: the live config, the policy, the pins) and the serving state
 * (`serving`, ./serving-state.ts: connections, hubs, the store, open questions, code runs).
 */
export class Runtime {
  readonly surface: Surface;
  readonly configLocation: ConfigSource;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly logger: Logger;
  private readonly cache?: Map<string, unknown>;
  private readonly options: RuntimeOptions;
  /** The config served now, the policy and the pins. */
  readonly configs: ConfigState;
  /** The connections, hubs and shared state of what this process serves. */
  readonly serving: ServingState;
  private readonly upstreams: UpstreamFactory;
  /** The close under way or done (close): a second call waits for it. */
  private closing?: Promise<void>;

  constructor(options: RuntimeOptions) {
    this.options = options;
    this.surface = options.surface;
    this.env = options.env ?? process.env;
    this.cwd = options.cwd ?? process.cwd();
    this.configLocation = locateConfig({ flag: options.configFlag, env: this.env, cwd: this.cwd });
    this.logger = options.logger ?? createLogger(parseLogLevel(this.env.MCPKIT_LOG_LEVEL));
    if (options.longLived) this.cache = new Map();
    this.configs = new ConfigState({
      location: this.configLocation,
      env: this.env,
      logger: this.logger,
      runtime: options,
      say: (line) => this.waiting(line),
      followers: () => this.serving,
    });
    this.upstreams = new UpstreamFactory({
      surface: this.surface,
      env: this.env,
      logger: this.logger,
      version: this.version(),
      longLived: options.longLived === true,
      references: () => this.configs.live.loaded?.references,
      ...(options.secretVariables ? { secrets: options.secretVariables } : {}),
      waiting: (message) => this.waiting(message, 'slow-server'),
      ...(options.serverStderr ? { serverStderr: options.serverStderr } : {}),
      ownFiles: () => this.configs.ownFiles(),
      requestStateTag: () => this.serving.store?.holder,
    });
    this.serving = new ServingState({
      configs: this.configs,
      upstreams: this.upstreams,
      configLocation: this.configLocation,
      env: this.env,
      logger: this.logger,
      options,
      groups: () => this.groups(),
      allTools: () => this.allTools(),
      policy: () => this.policy,
    });
  }

  /** The current config (yaml and the checks load only when something first needs it). */
  config(): Promise<McpkitConfig> {
    return this.configs.config();
  }

  /** The policy: fixed for a one-shot command; serve decides it anew from each config it reloads. */
  get policy(): Policy {
    return this.configs.policy;
  }

  version(): string {
    return this.options.version ?? packageVersion();
  }

  /** The context a handler gets, for one client's session (a new one when not given). */
  context(scope: CallScope = {}): ToolContext {
    return toolContext(this, scope, this.contextParts);
  }

  /** What a tool's context needs of this runtime that is its own (./tool-context.ts). */
  private readonly contextParts: ContextParts = {
    configOrDefaults: () => this.configs.configOrDefaults(),
    waiting: (message) => this.waiting(message),
    lastListing: (name, config) => this.upstreams.lastListing(name, config),
    followed: () => this.configs.followed,
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

  /** Opens a view, runs `use`, and closes the view's connections whatever happens. */
  async withHub<T>(view: ViewTarget, use: (hub: ProxyHub) => Promise<T>, options: OpenHubOptions = { quiet: true }): Promise<T> {
    if (this.options.warm && typeof view !== 'object' && !options.downstream) return use(await this.serving.openHub(view, { shared: true, era: 'legacy' }));
    const hub = await this.serving.openHub(view, { ...options, shared: false });
    try {
      return await use(hub);
    } finally {
      await hub.close();
    }
  }

  /** One server of the config for a single look, never reconnecting, quiet; closed after `use` (ToolContext.servers). */
  withServer<T>(name: string, config: ServerConfig, use: (server: OneOffServer) => Promise<T>, options: OneOffOptions = {}): Promise<T> {
    return this.upstreams.withOne(name, config, use, options);
  }

  /** What the process keeps in memory for tools (the daemon's status): the file index's bytes, when there is one. */
  async cacheSummary(): Promise<{ entries: number; roots?: ReturnType<FileIndexes['roots']> } & Partial<ReturnType<FileIndexes['memory']>>> {
    const { FILE_INDEXES_KEY } = await import('../tools/retrieve/shared.js');
    const indexes = (await this.cache?.get(FILE_INDEXES_KEY)) as FileIndexes | undefined;
    return { entries: this.cache?.size ?? 0, ...(indexes ? { ...indexes.memory(), roots: indexes.roots() } : {}) };
  }

  /**
   * Closes the shared upstream connections (serve's end): no child process outlives us. The
   * first-use pins waiting for their batch are written meanwhile: a signal's exit, or a line a host
   * ran, ends before the batch's timer would have fired, and a server left unpinned is pinned on its
   * next first use with whatever it lists then. At the same time, not first: the write may wait on
   * another process's hold of the lock file (up to its 15 s), and the upstreams' end must not wait
   * behind it. Once: a second call (a second signal) waits for the first.
   */
  close(): Promise<void> {
    return (this.closing ??= Promise.all([this.configs.writePendingPins(), this.serving.close()]).then(() => undefined));
  }

  private waiting(message: string, kind?: WaitKind): void {
    // A retry line names what it retries (a registry URL with ?key=${KEY}): masked like every message.
    if (this.options.waiting) this.options.waiting(redact(message), kind);
    else this.logger.info(message);
  }
}

export function createRuntime(options: RuntimeOptions): Runtime {
  return new Runtime(options);
}

export { readConfig } from './read-config.js';
