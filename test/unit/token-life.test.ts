import { describe, expect, it } from 'vitest';
import { durationMs, expiryOf, graceMs, graceUntil } from '../../src/config/edits/token-life.js';
import { matchClientToken, nextTokenDeadline, tokenDigest } from '../../src/mcp/access/client-tokens.js';
import { codeOf } from '../helpers/errors.js';

const NOW = Date.parse('2026-11-28T12:00:00.000Z');

describe('durations', () => {
  it.each<[string, number | undefined]>([
    ['2s', 2_000],
    ['10m', 600_000],
    ['12h', 43_200_000],
    ['30d', 2_592_000_000],
    [' 5m ', 300_000],
    ['0s', undefined],
    ['1.5h', undefined],
    ['10', undefined],
    ['10w', undefined],
    ['-5m', undefined],
    ['36500d', 3_153_600_000_000],
    ['999999999d', undefined],
    ['', undefined],
  ])('%j is %s ms', (text, ms) => expect(durationMs(text)).toBe(ms));
});

describe('--expires', () => {
  it.each<[string, string]>([
    ['30d', '2026-12-28T12:00:00.000Z'],
    ['2s', '2026-11-28T12:00:02.000Z'],
    ['2026-12-31', '2026-12-31T00:00:00.000Z'],
    ['2026-12-31T18:30:00+02:00', '2026-12-31T16:30:00.000Z'],
    ['never', 'never'],
  ])('%s is written as %s', (text, written) => expect(expiryOf(text, NOW)).toBe(written));

  it.each([
    ['a date that has passed', '2026-01-01'],
    ['a day that does not exist', '2026-02-31'],
    ['a time without a zone', '2026-12-31T10:00:00'],
    ['words', 'next week'],
    ['no unit', '30'],
    ['a duration past what a date holds', '999999999d'],
  ])('refuses %s', (_what, text) => expect(codeOf(() => expiryOf(text, NOW))).toBe('INVALID_INPUT'));
});

describe('--grace', () => {
  it('is a duration, and a grace never outlives the old token', () => {
    expect(graceMs('10m')).toBe(600_000);
    expect(codeOf(() => graceMs('soon'))).toBe('INVALID_INPUT');
    expect(codeOf(() => graceMs('999999999d'))).toBe('INVALID_INPUT');
    expect(graceUntil(NOW, 600_000, undefined)).toBe('2026-11-28T12:10:00.000Z');
    expect(graceUntil(NOW, 600_000, '2026-11-28T12:05:00.000Z')).toBe('2026-11-28T12:05:00.000Z');
    expect(graceUntil(NOW, 600_000, '2026-11-28T11:00:00.000Z')).toBeUndefined();
  });
});

describe('which client a token is, now', () => {
  const clients = [
    { name: 'a', token_sha256: tokenDigest('new-a'), token_expires: '2026-11-28T12:00:10.000Z' },
    { name: 'b', token_sha256: tokenDigest('new-b'), previous_token_sha256: tokenDigest('old-b'), previous_token_until: '2026-11-28T12:00:20.000Z' },
    { name: 'c', token: 'written-c', token_expires: 'not a time' },
  ];
  it.each<[string, string, number, { name: string; expired?: string } | undefined]>([
    ['a token before its expiry', 'new-a', NOW, { name: 'a' }],
    ['a token at its expiry', 'new-a', NOW + 10_000, { name: 'a', expired: '2026-11-28T12:00:10.000Z' }],
    ['the new token of a rotation', 'new-b', NOW + 60_000, { name: 'b' }],
    ['the old token within its grace', 'old-b', NOW + 19_999, { name: 'b' }],
    ['the old token once its grace ended: nobody', 'old-b', NOW + 20_000, undefined],
    ['an expiry that is no time: expired (fail closed)', 'written-c', NOW, { name: 'c', expired: '1970-01-01T00:00:00.000Z' }],
    ['a stranger', 'nope', NOW, undefined],
  ])('%s', (_what, token, now, want) => {
    const match = matchClientToken(clients, token, now);
    expect(match && { name: match.client.name, ...(match.expired !== undefined ? { expired: match.expired } : {}) }).toEqual(want);
  });

  it('the next deadline is the nearest expiry or grace end still ahead', () => {
    expect(nextTokenDeadline(clients, NOW)).toBe(NOW + 10_000);
    expect(nextTokenDeadline(clients, NOW + 10_000)).toBe(NOW + 20_000);
    expect(nextTokenDeadline(clients, NOW + 20_000)).toBeUndefined();
    expect(nextTokenDeadline(undefined, NOW)).toBeUndefined();
  });
});
