import type { Tool } from '@modelcontextprotocol/server';
import type { ToolError } from '../../core/errors.js';

/** What the catalog needs of an upstream: its tools, listed or as last seen, and whether it is down. */
export interface ToolSource {
  listTools(): Promise<Tool[]>;
  cachedTools(): Tool[];
  status(): { state: string };
  /** Whether this process listed the tools (else cachedTools may be an earlier process's seed). */
  listedLive?(): boolean;
  /** The client capabilities the connection offered (a server may list more tools for more). */
  capabilitySet?(): string | undefined;
  /** Why this caller may not reach the server at all (Upstream.refusal), if so. */
  refusal?(): ToolError | undefined;
  /** Down after its reconnect attempts ran out, a cool-down ago: starts a new round now (Upstream.revive), if so. */
  revive?(): boolean;
}

/** Lists a source's tools, then calls `settled` whether the listing answered or failed: a failure is the source's status, and the caller only waits. */
export function afterListing(source: ToolSource, settled: () => void): void {
  void source
    .listTools()
    .catch(() => undefined)
    .then(settled);
}

/** Past this many servers, a listing that waits only for a few stragglers waits for them a short while, not the whole wait. */
const MANY_SERVERS = 10;
const STRAGGLER_GRACE_MS = 1_000;

/**
 * Lists every source, and resolves with those still listing when it stops waiting: when all have
 * answered, at `waitMs`, or, in a view of many servers where at most a tenth (one at least) are
 * still listing, after a grace as long as the others took (1 s at least). One dead or
 * slow server then costs a listing seconds, not the whole wait.
 */
export function settleListings(sources: readonly ToolSource[], waitMs: number): Promise<ToolSource[]> {
  const pending = new Set(sources);
  const started = Date.now();
  return new Promise((resolve) => {
    let grace: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(deadline);
      clearTimeout(grace);
      resolve([...pending]);
    };
    const deadline = setTimeout(done, waitMs);
    const check = () => {
      if (pending.size === 0) return done();
      const few = sources.length >= MANY_SERVERS && pending.size <= Math.max(1, Math.floor(sources.length / 10));
      if (few && !grace) grace = setTimeout(done, Math.min(waitMs, Math.max(STRAGGLER_GRACE_MS, Date.now() - started)));
    };
    for (const source of sources)
      afterListing(source, () => {
        pending.delete(source);
        check();
      });
    check();
  });
}
