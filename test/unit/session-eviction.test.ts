import { describe, expect, it } from 'vitest';
import { idleSessions, sessionToEvict, type SessionUse } from '../../src/mcp/session-eviction.js';

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

describe('sessionToEvict', () => {
  it.each([
    ['no sessions', [], undefined],
    [
      'the least recently used',
      [
        ['a', s(5)],
        ['b', s(1)],
        ['c', s(3)],
      ],
      'b',
    ],
    [
      'an idle one before an older busy one',
      [
        ['a', s(1, 2)],
        ['b', s(5)],
        ['c', s(3)],
      ],
      'c',
    ],
    [
      'when all are busy, still the least recent (the cap holds)',
      [
        ['a', s(4, 1)],
        ['b', s(2, 1)],
      ],
      'b',
    ],
  ] as [string, [string, SessionUse][], string | undefined][])('%s', (_label, sessions, expected) => {
    expect(sessionToEvict(sessions)).toBe(expected);
  });
});
