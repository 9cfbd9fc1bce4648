import { Limiter, parseRate } from '../core/limits.js';
import type { McpkitConfig } from '../config/schema.js';
import type { UpstreamGate } from '../proxy/call-router.js';

/**
 * serve.upstream_limits: one limiter per server, shared by every view, era and client's own
 * connections, following the config live (a limiter is kept while its server's limits stay the
 * same, so a reload neither refills a bucket nor forgets the calls in flight).
 */
export class UpstreamLimits {
  private readonly gates = new Map<string, { key: string; gate: UpstreamGate }>();

  constructor(
    private readonly config: () => McpkitConfig | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The gate of a server's calls, or undefined when none is set (its calls keep the hot path). */
  gateOf(server: string): UpstreamGate | undefined {
    const spec = this.config()?.serve.upstream_limits?.[server];
    if (!spec || (spec.rate === undefined && spec.max_concurrent === undefined)) return undefined;
    const key = `${spec.rate ?? ''}\u0000${spec.max_concurrent ?? ''}\u0000${spec.queue_ms ?? 0}`;
    const kept = this.gates.get(server);
    if (kept?.key === key) return kept.gate;
    const rate = spec.rate !== undefined ? parseRate(spec.rate) : undefined;
    const limiter = new Limiter({ ...(rate ? { rate } : {}), ...(spec.max_concurrent !== undefined ? { maxConcurrent: spec.max_concurrent } : {}) }, this.now);
    const gate: UpstreamGate = { limiter, queueMs: spec.queue_ms ?? 0 };
    this.gates.set(server, { key, gate });
    return gate;
  }
}
