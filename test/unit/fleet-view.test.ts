import { describe, expect, it } from 'vitest';
import { configDigest, NO_CONFIG_DIGEST } from '../../src/config/config-digest.js';
import { judgeFleet, localProblems, seesFleet, shortDigest } from '../../src/mcp/http/health-view.js';
import type { AccessRules, Caller } from '../../src/mcp/access/route-access.js';
import { readRecord, type ListedRecord, type ReplicaRecord } from '../../src/store/replica-records.js';

describe('configDigest', () => {
  const base = 'mcp_servers: {}\nserve:\n  token: "${ADMIN}"\n  replica_id: "${REPLICA_ID}"\n';
  it.each<[string, string | undefined, string | undefined, boolean]>([
    ['the same text', base, base, true],
    ['comments and blank lines do not count', base, `# the team's gateway\n${base}\n\n`, true],
    ['key order does not count', base, 'serve:\n  replica_id: "${REPLICA_ID}"\n  token: "${ADMIN}"\nmcp_servers: {}\n', true],
    ['flow and block style do not count', 'a: {b: 1, c: [x, y]}\n', 'a:\n  c:\n    - x\n    - y\n  b: 1\n', true],
    ['a value counts', base, base.replace('{}', '{ x: { command: echo } }'), false],
    ['a variable counts as written, not by its value', base, base.replace('${ADMIN}', '${OTHER}'), false],
    ['a number is not its string', 'a: 1\n', 'a: "1"\n', false],
    ['an empty file is the empty config', '', '{}\n', true],
    ['no file is none', undefined, '', false],
  ])('%s', (_what, a, b, same) => expect(configDigest(a) === configDigest(b)).toBe(same));

  it('is a SHA-256 in hex, or "none" without a file; text that is not YAML is hashed as text', () => {
    expect(configDigest(base)).toMatch(/^[0-9a-f]{64}$/);
    expect(configDigest(undefined)).toBe(NO_CONFIG_DIGEST);
    expect(configDigest('a: [1\n')).toMatch(/^[0-9a-f]{64}$/);
    expect(configDigest('a: [1\n')).not.toBe(configDigest('a: [1 \n'));
  });
});

const record = (over: Partial<ReplicaRecord> = {}): ReplicaRecord => ({
  id: 'r1',
  holder: 'h1',
  version: '1.2.3',
  started_at: '2026-11-28T10:00:00.000Z',
  config: { digest: 'a'.repeat(64), generation: 1 },
  in_flight: 0,
  heartbeat_at: '2026-11-28T10:00:05.000Z',
  lease_ms: 15_000,
  ...over,
});
const listed = (over: Partial<ListedRecord> = {}): ListedRecord => ({ ...record(over), seen_ms_ago: 1_000, ...over });

describe('readRecord', () => {
  const good = record();
  it.each<[string, unknown, boolean]>([
    ['a record', good, true],
    ['not JSON', 'r1', false],
    ['null', null, false],
    ['a field missing', { ...good, version: undefined }, false],
    ['a count that is not one', { ...good, in_flight: -1 }, false],
    ['a fraction', { ...good, in_flight: 0.5 }, false],
    ['a generation that is text', { ...good, config: { digest: 'x', generation: '2' } }, false],
    ['an id past 64 characters', { ...good, id: 'x'.repeat(65) }, false],
    ['a lease of 0', { ...good, lease_ms: 0 }, false],
  ])('%s', (_what, value, ok) => {
    const stored = typeof value === 'string' || value === null ? (value as string | null) : JSON.stringify(value);
    expect(readRecord(stored) !== undefined).toBe(ok);
  });

  it('keeps only its own fields', () => {
    expect(readRecord(JSON.stringify({ ...good, extra: 'x'.repeat(100) }))).toEqual(good);
  });

  it('refuses a text too long to be a record', () => {
    expect(readRecord(JSON.stringify({ ...good, pad: 'x'.repeat(5000) }))).toBeUndefined();
  });
});

describe('judgeFleet', () => {
  const self = record();
  it('without a store: the one replica, ok', () => {
    const fleet = judgeFleet(self, undefined);
    expect(fleet.reasons).toEqual([]);
    expect(fleet.replicas).toEqual([expect.objectContaining({ id: 'r1', self: true, stale: false, seen_ms_ago: 0 })]);
    expect(fleet.replicas[0]).not.toHaveProperty('holder');
  });

  it('lists itself first, then the others by id; its own record in the store is not listed twice', () => {
    const fleet = judgeFleet(self, {
      records: [listed({ id: 'r3', holder: 'h3' }), listed({ holder: 'h1' }), listed({ id: 'r2', holder: 'h2' })],
      unreadable: 0,
    });
    expect(fleet.replicas.map((r) => r.id)).toEqual(['r1', 'r2', 'r3']);
    expect(fleet.reasons).toEqual([]);
  });

  it.each<[string, ListedRecord[], number, RegExp[]]>([
    [
      'a replica serving another config',
      [listed({ id: 'r2', holder: 'h2', config: { digest: 'b'.repeat(64), generation: 4 } }), listed({ id: 'r3', holder: 'h3' })],
      0,
      [/the replicas serve different configs: r1, r3 serve aaaaaaaaaaaa; r2 serves bbbbbbbbbbbb/],
    ],
    [
      'a replica not heard from for longer than its lease',
      [listed({ id: 'r2', holder: 'h2', seen_ms_ago: 20_000 })],
      0,
      [/replica r2 has not been heard from for 20 s \(its lease is 15 s\)/],
    ],
    ['two replicas with one id', [listed({ holder: 'h2' })], 0, [/2 replicas have the replica id r1/]],
    ['records that cannot be read', [], 2, [/2 record\(s\) in the store are not replica records/]],
  ])('degraded: %s', (_what, records, unreadable, reasons) => {
    const fleet = judgeFleet(self, { records, unreadable });
    expect(fleet.reasons).toHaveLength(reasons.length);
    reasons.forEach((reason, i) => expect(fleet.reasons[i]).toMatch(reason));
  });

  it('a dead replica serving an old config is stale, not a second config', () => {
    const fleet = judgeFleet(self, {
      records: [listed({ id: 'r2', holder: 'h2', seen_ms_ago: 31_000, config: { digest: 'c'.repeat(64), generation: 1 } })],
      unreadable: 0,
    });
    expect(fleet.reasons).toEqual([expect.stringMatching(/r2 has not been heard from/)]);
    expect(fleet.replicas[1]).toMatchObject({ id: 'r2', stale: true });
  });

  it('a store that cannot list: itself, and why the others are missing', () => {
    const fleet = judgeFleet(self, { problem: 'the store does not answer' });
    expect(fleet.replicas).toHaveLength(1);
    expect(fleet.reasons).toEqual(['the other replicas cannot be listed: the store does not answer']);
  });

  it('shortDigest is 12 characters', () => expect(shortDigest('0123456789abcdef')).toBe('0123456789ab'));
});

describe('localProblems', () => {
  it.each<[string, Parameters<typeof localProblems>[0], string[]]>([
    [
      'all well',
      {
        upstreams: [
          { name: 'a', state: 'ready' },
          { name: 'b', state: 'idle' },
        ],
      },
      [],
    ],
    ['an upstream down', { upstreams: [{ name: 'a', state: 'down' }] }, ['upstream a is down']],
    ['the audit log failing', { upstreams: [], audit: { ok: false } }, ['the audit log cannot be written (calls go on, their lines wait)']],
    [
      'the store lost',
      { upstreams: [], store: { url: 'redis://x', state: 'unreachable' } },
      ['the store (redis://x) is unreachable: limited calls are refused'],
    ],
  ])('%s', (_what, facts, reasons) => expect(localProblems(facts)).toEqual(reasons));
});

describe('seesFleet', () => {
  const open: AccessRules = { views: [], oauth: false, open: [] };
  const closed: AccessRules = { ...open, token: 'admin', open: ['/health'] };
  it.each<[string, AccessRules, Caller, boolean]>([
    ['the admin (serve.token)', closed, { id: 'token:serve', via: 'serve-token' }, true],
    ['anyone, where nothing is protected', open, { id: 'anonymous', via: 'open' }, true],
    ['anyone let in by serve.open_routes', closed, { id: 'anonymous', via: 'open' }, false],
    ['a named client with every route', closed, { id: 'client:ci', via: 'client', client: 'ci' }, false],
    ["a view's token", closed, { id: 'token:abc', via: 'view-token' }, false],
    ['an OAuth caller', { ...open, oauth: true }, { id: 'oauth:sub', via: 'oauth' }, false],
  ])('%s: %s', (_what, rules, caller, sees) => expect(seesFleet(rules, caller)).toBe(sees));
});
