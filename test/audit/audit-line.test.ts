import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/audit/audit-log.js';
import { auditLine, isoTime } from '../../src/audit/audit-line.js';

const base: AuditEntry = {
  time: '2026-11-25T12:00:00.123Z',
  method: 'tools/call',
  session: 'b5f7c1de-2a4e-4a55-9d5e-6a1f0c3b2e11',
  request: 7,
  client: 'alice',
  client_info: { name: 'claude-code', version: '2.1.0' },
  view: 'dev',
  name: 'everything__echo',
  server: 'everything',
  upstream_name: 'echo',
  duration_ms: 0.41,
  outcome: 'ok',
  error_code: null,
  bytes_in: 30,
  bytes_out: 57,
};

describe('auditLine', () => {
  // Each row must give exactly JSON.stringify's text: the stats command and every JSON Lines
  // reader parse it, and the key order is the one documented.
  it.each<[string, Partial<AuditEntry>]>([
    ['every field set', {}],
    ['nulls where a request stands alone', { session: null, request: null, client: null, client_info: null, view: null, server: null, upstream_name: null }],
    ['a string request id', { request: 'req-"1"' }],
    ['a tool error with its code', { outcome: 'tool_error', error_code: 'NOT_FOUND' }],
    ['a protocol error with a number code', { outcome: 'protocol_error', error_code: -32602 }],
    ['quotes, backslashes and control characters in names', { name: 'a"b\\c\n\u0001', client: 'token:"x"\t', client_info: { name: 'x\ty', version: '"1"' } }],
    ['non-ASCII and a lone surrogate', { name: 'écho-工具-\u{1F600}', view: 'v\uD800' }],
    ['a call through a meta-tool', { via: 'mcpkit_call_tool' }],
    ["a terminal's call (mcpkit call)", { surface: 'cli', client: 'terminal', session: null, client_info: null }],
    ['a duration that is not finite', { duration_ms: Number.NaN }],
    ['large byte counts', { bytes_in: 2 ** 40, bytes_out: 0 }],
    ['arguments', { arguments: { message: 'hi', nested: [1, { a: null }] } }],
    ['arguments that are a plain string', { arguments: 'raw' }],
  ])('%s', (_name, change) => {
    // In the documented order (the Auditor makes entries in it): `surface` follows `method`, `via` follows `name`.
    const { via, surface, ...rest } = { ...base, ...change };
    const after: Record<string, [string, unknown] | undefined> = {
      method: surface !== undefined ? ['surface', surface] : undefined,
      name: via !== undefined ? ['via', via] : undefined,
    };
    const entry = Object.fromEntries(Object.entries(rest).flatMap(([k, v]) => [[k, v], ...(after[k] ? [after[k]] : [])])) as unknown as AuditEntry;
    expect(auditLine(entry)).toBe(JSON.stringify(entry));
    expect(JSON.parse(auditLine(entry))).toEqual(JSON.parse(JSON.stringify(entry)));
  });
});

describe('isoTime', () => {
  it.each([
    ['the epoch', 0],
    ['a millisecond in', 1],
    ['ten ms in', 10],
    ['a hundred ms in', 100],
    ['the last ms of a second', 999],
    ['a time of today', Date.UTC(2026, 10, 25, 12, 34, 56, 789)],
    ['the next ms', Date.UTC(2026, 10, 25, 12, 34, 56, 790)],
    ['the next second', Date.UTC(2026, 10, 25, 12, 34, 57, 5)],
    ['back to the second before', Date.UTC(2026, 10, 25, 12, 34, 56, 1)],
    ['a leap day', Date.UTC(2028, 1, 29, 23, 59, 59, 999)],
    ['before the epoch', -1],
    ['before the epoch, within a second', -1500],
    ['a fraction of a millisecond', 1764072000123.9],
    ['a year past 9999 (six digits)', Date.UTC(10000, 0, 1)],
    ['a year before 0000', Date.UTC(-1, 0, 1)],
  ])('%s', (_name, ms) => {
    expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('agrees with Date over a run of a few seconds, in order and out of it', () => {
    const start = Date.UTC(2026, 10, 25, 23, 59, 58, 500);
    const times = Array.from({ length: 3000 }, (_, i) => start + i);
    for (const ms of [...times, ...times.reverse()]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });
});
