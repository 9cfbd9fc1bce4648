/** What the idle sweep and the session cap know of a session. */
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

/**
 * The session to end to make room: the least recently used of those with nothing in flight, and
 * only when every session is busy, the least recently used of all (the cap still holds). Pure.
 */
export function sessionToEvict<K>(sessions: Iterable<[K, SessionUse]>): K | undefined {
  let idle: [K, SessionUse] | undefined;
  let any: [K, SessionUse] | undefined;
  for (const entry of sessions) {
    if (!any || entry[1].lastSeen < any[1].lastSeen) any = entry;
    if (entry[1].busy === 0 && (!idle || entry[1].lastSeen < idle[1].lastSeen)) idle = entry;
  }
  return (idle ?? any)?.[0];
}
