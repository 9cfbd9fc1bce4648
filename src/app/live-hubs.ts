import type { McpkitConfig } from '../config/schema/schema.js';
import type { ReloadPlan } from '../config/reload-plan.js';
import type { Logger } from '../core/logger.js';
import type { ProxyHub } from '../proxy/hub.js';
import type { Upstream } from '../proxy/upstream/upstream.js';
import type { ResolvedView } from '../proxy/catalog/view.js';
import type { Policy } from '../tool/context.js';
import type { AnyTool } from '../tool/define.js';
import type { Pool, UpstreamPools } from './upstream-pools.js';

/** A hub `serve` keeps (a view's shared hub, or one client's own): a reload re-points it. */
export interface LiveHub {
  hub: ProxyHub;
  view: string | undefined;
  pool: Pool;
  /** Makes an upstream for this hub's pool, as the hub's first one was made. */
  make: (server: ResolvedView['servers'][number]) => Upstream;
}

/** What re-pointing a hub reads: the config and tools as they are now, and where to say what. */
export interface LiveHubDeps {
  config(): Promise<McpkitConfig>;
  tools(): Promise<readonly AnyTool[]>;
  policy(): Policy;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** A view removed from the config: the next client of it is told it does not exist. */
  forgetView(view: string): void;
}

/** The hubs serve keeps alive, which follow the config: each reload re-points them. */
export class LiveHubs {
  private readonly hubs = new Set<LiveHub>();

  constructor(private readonly deps: LiveHubDeps) {}

  add(entry: LiveHub): void {
    this.hubs.add(entry);
  }

  delete(entry: LiveHub): void {
    this.hubs.delete(entry);
  }

  /** Hubs whose servers' pins changed (an approval) list again. */
  pinsChanged(changed: readonly string[]): void {
    if (changed.length) for (const { hub } of this.hubs) hub.pinsChanged(changed);
  }

  /**
   * Carries out a reload (./live-config.ts has made the new config current): connections of
   * removed and restarted servers leave their pools and close once their calls end; every live
   * hub is resolved again and re-pointed when its view or its upstreams changed (its clients then
   * hear list_changed, once); a removed view's hub serves nothing; connections no hub uses close.
   */
  async applyReload(plan: ReloadPlan, pools: UpstreamPools): Promise<void> {
    // A closed hub has left the set already (HubOptions.onClose).
    const all = new Set([...pools.sharedPools, ...[...this.hubs].map((l) => l.pool)]);
    const retiring = pools.reload(plan, all);
    for (const live of this.hubs) await this.repoint(live);
    // Connections of servers that stay in the config but that no view serves any more.
    retiring.unused((pool) => new Set([...this.hubs].filter((l) => l.pool === pool).flatMap((l) => l.hub.upstreamList())));
  }

  /** Resolves a live hub's view from the current config again, and re-points the hub when that changed it. */
  async repoint(live: LiveHub): Promise<void> {
    const [{ resolveView, viewFingerprint }, tools, config] = await Promise.all([import('../proxy/catalog/view.js'), this.deps.tools(), this.deps.config()]);
    let resolved: ResolvedView;
    try {
      resolved = resolveView(config, live.view, tools, this.deps.policy(), this.deps.env);
    } catch (error) {
      // A view that is gone, or set aside for its problems, serves nothing until it is back.
      resolved = { ...live.hub.view, pins: [], servers: [], local: [], composites: [], hooks: [] };
      if (live.view !== undefined && !Object.hasOwn(config.tool_views, live.view)) this.deps.forgetView(live.view);
      else this.deps.logger.warn(`view "${live.view}" is not served until it is fixed: ${(error as Error).message}`);
    }
    const upstreamOf = (server: ResolvedView['servers'][number]) => pooled(live.pool, server, live.make);
    const same =
      viewFingerprint(resolved) === viewFingerprint(live.hub.view) &&
      resolved.servers.every((server, i) => live.pool.get(server.name) === live.hub.upstreamList()[i]);
    if (!same) live.hub.reconfigure(resolved, upstreamOf);
  }
}

/** The pool's connection to a server, made (and kept in the pool) if it has none. */
export function pooled(pool: Pool, server: ResolvedView['servers'][number], make: (server: ResolvedView['servers'][number]) => Upstream): Upstream {
  let upstream = pool.get(server.name);
  if (!upstream) pool.set(server.name, (upstream = make(server)));
  return upstream;
}
