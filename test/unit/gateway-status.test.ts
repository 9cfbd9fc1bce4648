import { describe, expect, it } from 'vitest';
import { adminToken, healthUrl, parsedHealth, seenAgo } from '../../src/cli/gateway/gateway-status.js';

describe('healthUrl', () => {
  it.each<[string, string]>([
    ['http://127.0.0.1:8000', 'http://127.0.0.1:8000/health'],
    ['http://127.0.0.1:8000/', 'http://127.0.0.1:8000/health'],
    ['http://127.0.0.1:8000/mcp', 'http://127.0.0.1:8000/health'],
    ['https://gw.example.com/team/health/', 'https://gw.example.com/team/health'],
    ['https://gw.example.com/team#x', 'https://gw.example.com/team/health'],
  ])('%s', (given, health) => expect(healthUrl(given).href).toBe(health));

  it.each<[string, RegExp]>([
    ['gateway', /is not an address/],
    ['ftp://gw.example.com', /must be http\(s\)/],
    ['https://admin:secret@gw.example.com', /carries credentials/],
    ['https://gw.example.com/?token=secret', /carries credentials or a query/],
  ])('refuses %s', (given, why) => expect(() => healthUrl(given)).toThrow(why));
});

describe('adminToken', () => {
  it.each<[string, NodeJS.ProcessEnv, string | undefined, { token?: string; from: string } | RegExp]>([
    ['MCPKIT_TOKEN by default', { MCPKIT_TOKEN: 't' }, undefined, { token: 't', from: 'MCPKIT_TOKEN' }],
    ['none when MCPKIT_TOKEN is not set (an open gateway)', {}, undefined, { from: 'MCPKIT_TOKEN' }],
    ['the variable --token-env names', { TEAM: 'x' }, 'TEAM', { token: 'x', from: 'TEAM' }],
    ['a --token-env that is not set is an error', {}, 'TEAM', /names TEAM, which is not set/],
    ['an empty one too', { TEAM: ' ' }, 'TEAM', /which is empty/],
    ['a value is not a name', { MCPKIT_TOKEN: 't' }, 'mcpk_abc-def', /takes a variable's name/],
  ])('%s', (_what, env, flag, expected) => {
    if (expected instanceof RegExp) expect(() => adminToken(env, flag)).toThrow(expected);
    else expect(adminToken(env, flag)).toEqual(expected);
  });
});

describe('parsedHealth', () => {
  const replica = {
    id: 'r1',
    version: '1.0.0',
    started_at: '2026-11-28T10:00:00.000Z',
    config: { digest: 'a'.repeat(64), generation: 1 },
    in_flight: 0,
    heartbeat_at: '2026-11-28T10:00:05.000Z',
    seen_ms_ago: 0,
    stale: false,
    self: true,
  };
  it.each<[string, unknown, ReturnType<typeof parsedHealth>]>([
    ['the bare status', { status: 'ok' }, { status: 'ok', reasons: [] }],
    ['the fleet', { status: 'degraded', reasons: ['x', 3], replicas: [replica] }, { status: 'degraded', reasons: ['x'], replicas: [replica] }],
    [
      'a replica that is not one is left out',
      { status: 'ok', replicas: [replica, { ...replica, in_flight: 'many' }, null] },
      { status: 'ok', reasons: [], replicas: [replica] },
    ],
    ['not a health answer', { status: 'fine' }, undefined],
    ['not JSON', '<html>', undefined],
  ])('%s', (_what, body, expected) => expect(parsedHealth(typeof body === 'string' ? body : JSON.stringify(body))).toEqual(expected));
});

describe('seenAgo', () => {
  it.each<[number, string]>([
    [0, 'just now'],
    [4_400, '4 s ago'],
    [180_000, '3 min ago'],
    [10_800_000, '3.0 h ago'],
  ])('%d ms: %s', (ms, text) => expect(seenAgo(ms)).toBe(text));
});
