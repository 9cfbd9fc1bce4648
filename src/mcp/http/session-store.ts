/** What the idle sweep knows of a session. */
export interface SessionUse {
  lastSeen: number;
  /** Requests of the session still being answered (a streaming call may take minutes). */
  busy: number;
}

/** Sessions unused for longer than idleMs; one answering a request is in use, however long it takes. Pure. */
export function idleSessions<K>(sessions: Iterable<[K, SessionUse]>, now: number, idleMs: number): K[] {
  const out: K[] = [];
  for (const [id, s] of sessions) if (s.busy === 0 && now - s.lastSeen > idleMs) out.push(id);
  return out;
}

/** A session as the store keeps it: where it was opened and by whom, which decide its quota. */
export interface QuotaKey {
  /** The route it was opened on (`/mcp`, `/view/NAME/mcp`). */
  route: string;
  /** Who opened it (route-access.ts `Caller.id`). */
  callerId: string;
}

/** A place held for a session being initialized; `release` gives it back if none was made. */
export interface Reservation {
  release(): void;
  /** The session was made: it now counts in its own right. */
  fill(): void;
}

const bucketOf = (key: QuotaKey) => `${key.route}\u0000${key.callerId}`;

/**
 * The HTTP sessions of `serve --http`, with a quota per route and caller: at most `maxPerBucket`
 * sessions of one caller on one route. A new session over it is refused, never made by ending
 * someone else's: with one global cap, a client of one view could end every other view's
 * sessions by opening a thousand of its own.
 */
export class SessionStore<S extends SessionUse & QuotaKey> {
  private readonly sessions = new Map<string, S>();
  /** Sessions and reservations per bucket. */
  private readonly counts = new Map<string, number>();

  constructor(private readonly maxPerBucket: number) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): S | undefined {
    return this.sessions.get(id);
  }

  entries(): IterableIterator<[string, S]> {
    return this.sessions.entries();
  }

  values(): IterableIterator<S> {
    return this.sessions.values();
  }

  /** A place for a new session of this caller on this route, or undefined when its quota is used up. */
  reserve(key: QuotaKey): Reservation | undefined {
    const bucket = bucketOf(key);
    const count = this.counts.get(bucket) ?? 0;
    if (count >= this.maxPerBucket) return undefined;
    this.counts.set(bucket, count + 1);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.uncount(bucket);
      },
      fill: () => {
        held = false;
      },
    };
  }

  /** Adds a session whose place was reserved (`reservation.fill()` is called here). */
  add(id: string, session: S, reservation: Reservation): void {
    reservation.fill();
    this.sessions.set(id, session);
  }

  /** Removes a session; its place in the quota is free again. */
  delete(id: string): S | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    this.sessions.delete(id);
    this.uncount(bucketOf(session));
    return session;
  }

  private uncount(bucket: string): void {
    const count = (this.counts.get(bucket) ?? 1) - 1;
    if (count <= 0) this.counts.delete(bucket);
    else this.counts.set(bucket, count);
  }
}
