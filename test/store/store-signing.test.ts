import { describe, expect, it } from 'vitest';
import { DropLog } from '../../src/store/drop-log.js';
import { settleMs, storeRun } from '../../src/store/store-client.js';
import { isStoreMessage } from '../../src/store/store-messages.js';
import { FRESH_MS, ReplayGuard, StoreSigner, type Purpose } from '../../src/store/store-signing.js';
import { storeKeyProblem, storeUrlWarnings } from '../../src/store/store-trust.js';
import { redisVerdict } from '../support/redis-server.js';

/** What replicas sign, and what they take: every way a text can fail to be a replica's. */

const KEY = 'k3y-0f-the-replicas-AbCdEfGhIjKlMnOp';
const signer = new StoreSigner(KEY, 'mcpkit');
const call = { kind: 'call', id: 'c1', holder: 'h', from: 'r1', caller: { id: 'client:bob', via: 'token', client: 'bob' } };
const sealed = signer.seal('call', 'mcpkit:tasks', 'r1', call, 1_000, 'nonce-1');
const reseal = (change: (e: Record<string, unknown>) => void) => {
  const envelope = JSON.parse(sealed) as Record<string, unknown>;
  change(envelope);
  return JSON.stringify(envelope);
};

describe('a signed text opens only as it was sealed', () => {
  it('opens with its purpose, sender, body, time and nonce', () => {
    expect(signer.open(sealed, 'mcpkit:tasks', ['call'])).toEqual({ ok: true, purpose: 'call', sender: 'r1', body: call, sentAt: 1_000, nonce: 'nonce-1' });
  });
  it.each<[string, string, string, readonly Purpose[], string]>([
    ['plain JSON, unsigned', JSON.stringify(call), 'mcpkit:tasks', ['call'], 'unsigned'],
    ['not JSON', 'hello', 'mcpkit:tasks', ['call'], 'unsigned'],
    ['another version', reseal((e) => (e.v = 2)), 'mcpkit:tasks', ['call'], 'unsigned'],
    ['a purpose not asked for', sealed, 'mcpkit:tasks', ['reply', 'cancel'], 'unsigned'],
    [
      'another key',
      new StoreSigner('another-key-of-32-characters-XYZ123456', 'mcpkit').seal('call', 'mcpkit:tasks', 'r1', call, 1_000, 'n'),
      'mcpkit:tasks',
      ['call'],
      'forged',
    ],
    [
      'the same key under another prefix',
      new StoreSigner(KEY, 'other').seal('call', 'mcpkit:tasks', 'r1', call, 1_000, 'n'),
      'mcpkit:tasks',
      ['call'],
      'forged',
    ],
    ['bound elsewhere (another channel, another key)', sealed, 'mcpkit:{task:1}', ['call'], 'forged'],
    [
      'its body altered',
      reseal((e) => (e.b = JSON.stringify({ ...call, caller: { id: 'token:serve', via: 'serve-token' } }))),
      'mcpkit:tasks',
      ['call'],
      'forged',
    ],
    ['its sender altered', reseal((e) => (e.s = 'r2')), 'mcpkit:tasks', ['call'], 'forged'],
    ['its time altered', reseal((e) => (e.t = 2_000)), 'mcpkit:tasks', ['call'], 'forged'],
    ['its nonce altered', reseal((e) => (e.n = 'nonce-2')), 'mcpkit:tasks', ['call'], 'forged'],
    ['its purpose altered', reseal((e) => (e.p = 'reply')), 'mcpkit:tasks', ['call', 'reply'], 'forged'],
    ['a signature cut short', reseal((e) => (e.h = String(e.h).slice(0, 10))), 'mcpkit:tasks', ['call'], 'forged'],
    ['no signature', reseal((e) => (e.h = '')), 'mcpkit:tasks', ['call'], 'forged'],
  ])('%s: dropped as %s', (_what, text, bound, purposes, why) => expect(signer.open(text, bound, purposes)).toEqual({ ok: false, why }));
});

describe('a message is taken fresh and once', () => {
  it.each([
    ['just sent', 10_000, 10_000, true],
    ['sent a little in the future (clocks differ)', 10_000 + FRESH_MS, 10_000, true],
    ['older than the window', 10_000, 10_000 + FRESH_MS + 1, 'stale'],
    ['further in the future than the window', 10_000 + FRESH_MS + 1, 10_000, 'stale'],
  ])('%s', (_what, sentAt, now, verdict) => expect(new ReplayGuard().admit(sentAt, 'n', now)).toBe(verdict));
  it('the same nonce twice is a replay; another is not; a nonce is forgotten only once it would be stale anyway', () => {
    const guard = new ReplayGuard();
    expect(guard.admit(0, 'a', 0)).toBe(true);
    expect(guard.admit(0, 'a', 5)).toBe('replayed');
    expect(guard.admit(1, 'b', 5)).toBe(true);
    expect(guard.admit(0, 'a', FRESH_MS)).toBe('replayed');
    expect(guard.admit(0, 'a', FRESH_MS + 1)).toBe('stale');
  });
});

describe('serve.store.key', () => {
  it.each([
    [undefined, /is not set/],
    ['', /is not set/],
    ['short-key', /is 9 characters long: it needs at least 32/],
    ['a'.repeat(40), /only 1 different characters/],
    ['0123456789abcdef0123456789abcdef', undefined],
    ['q1Y8nJ0cF3xv7Kc2m0R3n5U8v2XbJ7sA9dE4hL6pQ0o=', undefined],
  ])('%s', (key, problem) => {
    const found = storeKeyProblem(key);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });
});

describe('warnings of the store’s address', () => {
  it.each([
    ['redis://127.0.0.1:6379/0', ['no password']],
    ['redis://:pw@127.0.0.1:6379/0', []],
    ['redis://:pw@localhost:6379', []],
    ['redis://:pw@cache.internal:6379/0', ['without TLS at cache.internal']],
    ['redis://cache.internal:6379', ['no password', 'without TLS']],
    ['rediss://:pw@cache.internal:6380', []],
    ['rediss://cache.internal:6380', ['no password']],
  ])('%s', (url, said) => {
    const warnings = storeUrlWarnings(url);
    expect(warnings).toHaveLength(said.length);
    said.forEach((text, i) => expect(warnings[i]).toContain(text));
  });
});

describe('a restart of the store, told by INFO', () => {
  it.each([
    ['# Server\r\nredis_version:7.0.15\r\nrun_id:abc123\r\nuptime_in_seconds:2\r\n', { runId: 'abc123', uptimeMs: 2000 }],
    ['run_id:x\r\n', undefined],
    ['', undefined],
  ])('%j', (info, run) => expect(storeRun(info)).toEqual(run));
  it.each([
    [0, 6000],
    [2000, 4000],
    [6000, 0],
    [60_000, 0],
  ])('up %i ms: limited calls wait %i ms', (uptime, wait) => expect(settleMs(uptime)).toBe(wait));
});

describe('a signed body has the shape of its purpose', () => {
  it.each([
    [{ kind: 'call' }, 'call', true],
    [{ kind: 'call' }, 'reply', false],
    [{ kind: 'other' }, 'other', false],
    ['text', 'call', false],
    [null, 'call', false],
  ])('%j as %s', (body, purpose, ok) => expect(isStoreMessage(body, purpose)).toBe(ok));
});

describe('what is dropped is said, rate-limited', () => {
  it('the first of a reason at once, the rest counted and said a minute later', () => {
    const lines: string[] = [];
    let now = 0;
    const log = new DropLog({ warn: (line: string) => lines.push(line) } as never, () => now);
    log.dropped('forged', 'a message on the channel');
    log.dropped('forged', 'a message on the channel');
    log.dropped('replayed', 'a message on the channel');
    expect(lines).toHaveLength(2);
    now = 61_000;
    log.dropped('forged', 'a message on the channel');
    expect(lines[2]).toContain('(and 1 more since the last said)');
  });
});

describe('a test file that needs redis-server', () => {
  it.each([
    ['/usr/bin/redis-server', false, 'run'],
    ['/usr/bin/redis-server', true, 'run'],
    [undefined, true, 'fail'],
    [undefined, false, 'skip'],
  ] as const)('installed %s, required %s: %s', (installed, required, kind) => {
    const verdict = redisVerdict('the store', installed, required);
    expect(verdict.kind).toBe(kind);
    if (kind === 'skip') expect(verdict.message).toMatch(/^skipped: the store \(.*redis-server.*\)$/);
    if (kind === 'fail') expect(verdict.message).toContain('MCPKIT_REDIS=required');
  });
});
