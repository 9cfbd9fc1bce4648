import { describe, expect, it } from 'vitest';
import { idleSessions, SessionStore, type SessionUse } from '../../src/mcp/http/session-store.js';

const s = (lastSeen: number, busy = 0): SessionUse => ({ lastSeen, busy });

describe('idleSessions', () => {
  it.each([
    ['none used for long', [['a', s(900)]], []],
    [
      'one unused past the limit',
      [
        ['a', s(100)],
        ['b', s(900)],
      ],
      ['a'],
    ],
    [
      'a busy one is never idle',
      [
        ['a', s(0, 1)],
        ['b', s(100)],
      ],
      ['b'],
    ],
    ['exactly at the limit is not past it', [['a', s(500)]], []],
  ] as [string, [string, SessionUse][], string[]][])('%s', (_label, sessions, expected) => {
    expect(idleSessions(sessions, 1000, 500)).toEqual(expected);
  });
});

describe('SessionStore: a quota per route and caller', () => {
  const session = (route: string, callerId: string) => ({ route, callerId, lastSeen: 0, busy: 0 });

  it('refuses a place past the quota of one bucket, and not of another', () => {
    const store = new SessionStore(2);
    const key = { route: '/view/a/mcp', callerId: 'anonymous' };
    const r1 = store.reserve(key)!;
    store.add('1', session(key.route, key.callerId), r1);
    store.add('2', session(key.route, key.callerId), store.reserve(key)!);
    expect(store.reserve(key)).toBeUndefined();
    expect(store.reserve({ route: '/view/b/mcp', callerId: 'anonymous' })).toBeDefined();
    expect(store.reserve({ route: '/view/a/mcp', callerId: 'token:abc' })).toBeDefined();
  });

  it('counts a reservation until it is released or filled, and a deleted session frees its place', () => {
    const store = new SessionStore(1);
    const key = { route: '/mcp', callerId: 'anonymous' };
    const held = store.reserve(key)!;
    expect(store.reserve(key)).toBeUndefined();
    held.release();
    held.release(); // twice is once
    const again = store.reserve(key)!;
    store.add('x', session('/mcp', 'anonymous'), again);
    again.release(); // filled: releasing it does not free the session's place
    expect(store.reserve(key)).toBeUndefined();
    expect(store.delete('x')).toBeDefined();
    expect(store.delete('x')).toBeUndefined();
    expect(store.reserve(key)).toBeDefined();
  });
});
