/**
 * The calls serve is running, each under whose it is (a credential on a route): a reload that
 * takes the credential away cancels them at once (the upstream is sent notifications/cancelled),
 * on every path and in both eras, rather than letting them finish for a client that may no longer
 * call. `W` is what the front end knows of whose a call is (mcp/http/http-options.ts `Whose`: the caller and its route).
 */
export class CallsInFlight<W> {
  /**
   * One entry per running call, in one long-lived set: a call adds and deletes one entry, nothing
   * else (whose is new per request, so a set per owner was made and dropped per call). Reading
   * by owner is for a reload, which walks them all.
   */
  private readonly calls = new Set<{ whose: W; cancel: () => Promise<void> }>();

  /** A call begins: `cancel` ends it, settling once it has ended. The returned function forgets it once it has ended. */
  add(whose: W, cancel: () => Promise<void>): () => void {
    const entry = { whose, cancel };
    this.calls.add(entry);
    return () => void this.calls.delete(entry);
  }

  /** Whose calls are running now. */
  owners(): W[] {
    return [...new Set([...this.calls].map((entry) => entry.whose))];
  }

  /** How many calls are running now, whoever's they are. */
  count(): number {
    return this.calls.size;
  }

  /** Cancels every call of these owners; settles with how many once each has ended. */
  async cancel(owners: Iterable<W>): Promise<number> {
    const ending: Promise<void>[] = [];
    const cancelled = new Set(owners);
    for (const entry of [...this.calls]) {
      if (!cancelled.has(entry.whose)) continue;
      this.calls.delete(entry);
      ending.push(entry.cancel());
    }
    await Promise.allSettled(ending);
    return ending.length;
  }
}

/** Where a request's calls are registered: the registry and whose they are. */
export interface InFlightScope {
  add(cancel: () => Promise<void>): () => void;
}

export function scopeOf<W>(calls: CallsInFlight<W>, whose: W): InFlightScope {
  return { add: (cancel) => calls.add(whose, cancel) };
}
