/**
 * The calls serve is running, each under whose it is (a credential on a route): a reload that
 * takes the credential away cancels them at once (the upstream is sent notifications/cancelled),
 * on every path and in both eras, rather than letting them finish for a client that may no longer
 * call. `W` is what the front end knows of whose a call is (mcp/http/http-options.ts `Whose`: the caller and its route).
 */
export class CallsInFlight<W> {
  private readonly calls = new Map<W, Set<() => Promise<void>>>();

  /** A call begins: `cancel` ends it, settling once it has ended. The returned function forgets it once it has ended. */
  add(whose: W, cancel: () => Promise<void>): () => void {
    let set = this.calls.get(whose);
    if (!set) this.calls.set(whose, (set = new Set()));
    set.add(cancel);
    return () => {
      set.delete(cancel);
      if (set.size === 0 && this.calls.get(whose) === set) this.calls.delete(whose);
    };
  }

  /** Whose calls are running now. */
  owners(): W[] {
    return [...this.calls.keys()];
  }

  /** How many calls are running now, whoever's they are. */
  count(): number {
    let n = 0;
    for (const set of this.calls.values()) n += set.size;
    return n;
  }

  /** Cancels every call of these owners; settles with how many once each has ended. */
  async cancel(owners: Iterable<W>): Promise<number> {
    const ending: Promise<void>[] = [];
    for (const whose of owners) {
      const set = this.calls.get(whose);
      this.calls.delete(whose);
      for (const cancel of set ?? []) ending.push(cancel());
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
