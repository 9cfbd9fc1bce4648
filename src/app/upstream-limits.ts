import { KeptLimiters, parseRate } from '../core/limits.js';
import type { SharedStore } from '../store/shared-store.js';
import type { McpkitConfig } from '../config/schema/schema.js';
import type { UpstreamGate } from '../proxy/calls/call-router.js';

/**
 * serve.upstream_limits: one limiter per server, shared by every view, era and client's own
 * connections, following the config live (core/limits.ts KeptLimiters keeps a server's limiter
 * while its limits stay the same).
 */
export class UpstreamLimits {
  private readonly limiters: KeptLimiters;

  constructor(
    private readonly config: () => McpkitConfig | undefined,
    now: () => number = () => performance.now(),
  ) {
    this.limiters = new KeptLimiters(now);
  }

  private store?: SharedStore;

  /** serve.store: from now on the servers' limits are kept there, across replicas. */
  useStore(store: SharedStore): void {
    this.store = store;
  }

  /** The gate of a server's calls, or undefined when none is set (its calls keep the hot path). */
  gateOf(server: string): UpstreamGate | undefined {
    const spec = this.config()?.serve.upstream_limits?.[server];
    const store = this.store;
    if (store) {
      if (spec?.rate === undefined && spec?.max_concurrent === undefined) return undefined;
      const rate = spec.rate !== undefined ? parseRate(spec.rate) : undefined;
      const limits = { ...(rate ? { rate } : {}), ...(spec.max_concurrent !== undefined ? { maxConcurrent: spec.max_concurrent } : {}) };
      return { limiter: { wait: (ms, signal) => store.wait(`server:${server}`, limits, ms, signal) }, queueMs: spec.queue_ms ?? 0 };
    }
    const limiter = this.limiters.of(server, spec);
    return limiter ? { limiter, queueMs: spec?.queue_ms ?? 0 } : undefined;
  }
}
