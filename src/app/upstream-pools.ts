import type { Tool } from '@modelcontextprotocol/server';
import type { ReloadPlan } from '../config/reload-plan.js';
import type { ClientEra } from '../proxy/eras/era.js';
import type { Upstream, UpstreamStatus } from '../proxy/upstream/upstream.js';

/** How long a removed or changed server's calls in flight may still run before its connection closes. */
export const RETIRE_GRACE_MS = 5_000;

/**
 * A pool of upstream connections by server name: the ones `serve` shares per client era, or a
 * client's or a terminal command's own. It carries the era of the clients its connections serve
 * (proxy/eras/era.ts: what a connection offers and how it meets an `auto` server): every
 * connection made into it is made for that era, so no caller threads the era past the pool.
 * Undefined: a terminal's, which meets each server in whatever era it speaks.
 */
export class Pool extends Map<string, Upstream> {
  constructor(readonly era?: ClientEra) {
    super();
  }
}

/**
 * The upstream connections a runtime holds: the pools `serve` shares (one per client era) and the
 * connections a reload took out of service, closing once their calls end. A reload asks it to
 * take out what the plan removed or restarted, then what no hub uses any more; each goes with
 * the reason its callers are told.
 */
export class UpstreamPools {
  readonly shared: Readonly<Record<ClientEra, Pool>> = { legacy: new Pool('legacy'), modern: new Pool('modern') };
  /** The shared pools, one per client era. */
  readonly sharedPools: readonly Pool[] = [this.shared.legacy, this.shared.modern];
  private readonly retiring = new Map<Upstream, Promise<void>>();

  /**
   * Retires, from `pools`, the servers the plan removed or restarted (before the hubs are
   * re-pointed), and returns what else to check once they are: `unused(usedIn)` retires the
   * connections of servers that stay in the config but that no hub uses.
   */
  reload(plan: ReloadPlan, pools: ReadonlySet<Pool>): { unused(usedIn: (pool: Pool) => ReadonlySet<Upstream>): void } {
    const leaving = new Map<Upstream, string>();
    for (const pool of pools) {
      for (const [name, why] of [
        ...plan.servers.removed.map((n) => [n, 'it was removed from the config (or disabled)'] as const),
        ...plan.servers.restarted.map((n) => [n, 'its entry in the config changed, and it was restarted'] as const),
      ]) {
        const upstream = pool.get(name);
        if (!upstream) continue;
        pool.delete(name);
        leaving.set(upstream, why);
      }
    }
    return {
      unused: (usedIn) => {
        for (const pool of pools) {
          const used = usedIn(pool);
          for (const [name, upstream] of pool) {
            if (used.has(upstream)) continue;
            pool.delete(name);
            leaving.set(upstream, 'no served view has it any more');
          }
        }
        for (const [upstream, why] of leaving) this.retire(upstream, why);
      },
    };
  }

  private retire(upstream: Upstream, why: string): void {
    this.retiring.set(
      upstream,
      upstream.retire(RETIRE_GRACE_MS, why).finally(() => this.retiring.delete(upstream)),
    );
  }

  /**
   * The shared connections' state: each server once, with the era its 2025 clients use first, and
   * where 2026 clients have a connection of their own to it too, both under `connections`.
   */
  status(withheld?: (server: string, tools: Tool[]) => number | undefined): UpstreamStatus[] {
    const withCount = (u: Upstream): UpstreamStatus => {
      const held = u.listedLive() ? withheld?.(u.name, u.cachedTools()) : undefined;
      return held === undefined ? u.status() : { ...u.status(), withheld: held };
    };
    const era = (u: Upstream, name: ClientEra) => {
      const { state, reconnect_attempts } = u.status();
      return { era: name, state, reconnect_attempts };
    };
    const legacy = [...this.shared.legacy.values()].map((u) => {
      const modern = this.shared.modern.get(u.name);
      return modern ? { ...withCount(u), connections: [era(u, 'legacy'), era(modern, 'modern')] } : withCount(u);
    });
    const modernOnly = [...this.shared.modern.values()].filter((u) => !this.shared.legacy.has(u.name)).map(withCount);
    return [...legacy, ...modernOnly];
  }

  /** Closes every connection, retiring ones too (they get no grace period at exit). */
  async close(): Promise<void> {
    const all = [...this.sharedPools.flatMap((pool) => [...pool.values()]), ...this.retiring.keys()];
    await Promise.allSettled(all.map((u) => u.close()));
  }
}
