import { KeptLimiters } from '../core/limits.js';
import type { McpkitConfig } from '../config/schema.js';
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

  /** The gate of a server's calls, or undefined when none is set (its calls keep the hot path). */
  gateOf(server: string): UpstreamGate | undefined {
    const spec = this.config()?.serve.upstream_limits?.[server];
    const limiter = this.limiters.of(server, spec);
    return limiter ? { limiter, queueMs: spec?.queue_ms ?? 0 } : undefined;
  }
}
