import { dirname, resolve } from 'node:path';
import { DEFAULT_PIN_MODE } from '../config/schema/defaults.js';
import type { ConfigSource } from '../config/locate.js';
import { ownFiles, type OwnFiles } from '../config/files/own-files.js';
import type { McpkitConfig } from '../config/schema/schema.js';
import type { Logger } from '../core/logger.js';
import type { PinKeeper } from '../proxy/pins/pin-keeper.js';
import type { ReloadPlan } from '../config/reload-plan.js';
import { DEFAULT_POLICY, type Policy } from '../tool/context.js';
import { LiveConfig, type ConfigStatus, type ReloadReport } from './live-config.js';
import type { RuntimeOptions } from './runtime-options.js';

/** What the config's state tells the serving state (./serving-state.ts): a reload to apply, servers whose pins changed. */
export interface ConfigFollowers {
  applyReload(plan: ReloadPlan): Promise<void>;
  pinsChanged(servers: readonly string[]): void;
}

export interface ConfigStateOptions {
  location: ConfigSource;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  runtime: Pick<RuntimeOptions, 'policy' | 'config' | 'announce' | 'auditLog' | 'surface'>;
  /** Where a line about the pins is said when no `announce` is given. */
  say: (line: string) => void;
  /** The hubs that follow the config (the serving state's), told of what changed. */
  followers: () => ConfigFollowers;
}

/**
 * The config's state of one runtime: the config served now (`live`, ./live-config.ts), the
 * policy decided from it, and the tool pins read beside it. A reload changes all three, then
 * tells the hubs that follow them (`followers`).
 */
export class ConfigState {
  /** The one owner of the current config. */
  readonly live: LiveConfig;
  private policyNow: Policy;
  private pinKeeper?: PinKeeper;
  /** Set once serve follows the config: its hubs are then live. */
  private followedNow = false;
  private following?: Promise<void>;

  constructor(private readonly options: ConfigStateOptions) {
    this.policyNow = options.runtime.policy ?? DEFAULT_POLICY;
    this.live = new LiveConfig({
      location: options.location,
      env: options.env,
      logger: options.logger,
      ...(options.runtime.config ? { initial: options.runtime.config } : {}),
      ...(options.runtime.announce ? { announce: options.runtime.announce } : {}),
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

  /** Whether serve follows the config (its hubs are then re-pointed by a reload). */
  get followed(): boolean {
    return this.followedNow;
  }

  /** The config, or the defaults when there is no file (a tool that may create it). */
  async configOrDefaults(): Promise<McpkitConfig> {
    try {
      return await this.config();
    } catch (error) {
      if ((error as { code?: string }).code !== 'CONFIG_NOT_FOUND') throw error;
      return (await import('../config/schema/schema.js')).defaultConfig();
    }
  }

  /**
   * From now on a `reload` serves what the config file says (serve): `policyFor` decides the
   * policy from a config (a throw keeps the last good config), and every live hub is re-pointed.
   */
  follow(policyFor: (config: McpkitConfig) => Promise<Policy>): Promise<void> {
    let next: Policy | undefined;
    this.followedNow = true;
    return (this.following = this.live.follow(
      async (config) => void (next = await policyFor(config)),
      async (before, _after, plan) => {
        if (next) this.policyNow = next;
        // The pins are read again before the hubs list anew and their clients hear list_changed: until
        // then the tools of a server whose entry changed are withheld (their pins were held for the
        // old entry, pin-keeper.ts), and a call that came on the news was refused.
        const changed = this.pinKeeper?.refresh((server) => before.mcp_servers[server]) ?? [];
        try {
          await this.options.followers().applyReload(plan);
        } finally {
          this.options.followers().pinsChanged(changed);
        }
      },
    ));
  }

  /** Reads the config and the tool pins again and serves them: hubs whose servers' pins changed (an approval) list again. */
  async reload(reason: string): Promise<ReloadReport> {
    // A reload asked for while following is being set up waits for it: it needs the text served and the apply step.
    await this.following;
    const before = this.live.loaded;
    let report: ReloadReport | undefined;
    try {
      return (report = await this.live.reload(reason));
    } finally {
      // A followed reload that applied read the pins as it applied (`follow`). Any other reads them
      // here: one that found the config unchanged (an approval alone), kept the last, or failed part
      // way, since a server whose entry changed is withheld until the pins are read again (pin-keeper.ts).
      if (!(report?.outcome === 'applied' && this.followedNow))
        this.options.followers().pinsChanged(this.pinKeeper?.refresh((server) => before?.mcp_servers[server]) ?? []);
    }
  }

  status(): ConfigStatus {
    return this.live.status();
  }

  /** The process's tool pins (proxy/pins/pin-keeper.ts), read on first use from the lock file beside the config. */
  async pins(): Promise<PinKeeper> {
    if (this.pinKeeper) return this.pinKeeper;
    const [{ PinKeeper }, { pinFilePath, dropCountsOf }] = await Promise.all([
      import('../proxy/pins/pin-keeper.js'),
      import('../config/files/pin-file.js'),
      // The keeper compares the lock with the one read with the config: the config first (a config that fails fails its hub).
      this.config().catch(() => undefined),
    ]);
    const say = this.options.runtime.announce ?? this.options.say;
    const path = pinFilePath(this.options.location.path);
    return (this.pinKeeper ??= new PinKeeper(path, this.options.logger, say, {
      entryOf: (server) => this.live.loaded?.mcp_servers[server],
      // serve.list_from_lock: serve's first listing of a server may be answered from its intact pins while it starts.
      lockAnswersListings: () => this.options.runtime.surface === 'mcp' && this.live.loaded?.serve.list_from_lock === true,
      dropsAtLoad: () => dropCountsOf(this.live.pinTextAtLoad, path),
    }));
  }

  /** Writes the first-use pins waiting for their batch (a runtime that closes: its process or line may end before the batch's timer). */
  async writePendingPins(): Promise<void> {
    await this.pinKeeper?.writePending();
  }

  /** How many of a server's tools its pins withhold now (undefined before the pins are read). */
  withheldCount(server: string, tools: Parameters<PinKeeper['withheldCount']>[1]): number | undefined {
    const config = this.live.loaded;
    const mode = config?.mcp_servers[server]?.pinning ?? config?.pinning ?? DEFAULT_PIN_MODE;
    return this.pinKeeper?.withheldCount(server, tools, mode);
  }

  /** mcpkit's own files and folders under the current config: its config, pins, audit log (flag or serve.audit_log), state, cache. */
  ownFiles(): OwnFiles {
    const { location, env, runtime } = this.options;
    const configured = this.live.loaded?.serve.audit_log;
    const auditLog = runtime.auditLog ?? (configured ? resolve(dirname(location.path), configured) : undefined);
    return ownFiles({ configPath: location.path, env, ...(auditLog ? { auditLog } : {}) });
  }
}
