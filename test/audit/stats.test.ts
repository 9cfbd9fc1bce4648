import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/audit/audit-log.js';
import { outcomeOf } from '../../src/audit/auditor.js';
import { parseAuditLines, parseDuration, percentile, summarize } from '../../src/audit/stats.js';

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  time: '2026-11-24T10:00:00.000Z',
  method: 'tools/call',
  session: 's1',
  request: 1,
  client: 'alice',
  client_info: { name: 'claude', version: '1.0' },
  view: null,
  name: 'echo',
  server: 'everything',
  upstream_name: 'echo',
  duration_ms: 1,
  outcome: 'ok',
  error_code: null,
  bytes_in: 2,
  bytes_out: 10,
  ...over,
});

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
    ['2d', 172_800_000],
    ['1.5h', 5_400_000],
    [' 1h ', 3_600_000],
    ['1', undefined],
    ['1w', undefined],
    ['h', undefined],
    ['-1h', undefined],
  ])('%j is %j', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('percentile (nearest rank)', () => {
  it.each([
    [[], 50, 0],
    [[5], 95, 5],
    [[1, 2, 3, 4], 50, 2],
    [[1, 2, 3, 4], 95, 4],
    [Array.from({ length: 100 }, (_, i) => i + 1), 95, 95],
    [Array.from({ length: 100 }, (_, i) => i + 1), 50, 50],
  ])('%j at %d is %d', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });
});

describe('outcomeOf', () => {
  it.each([
    [{ result: { content: [] } }, { outcome: 'ok', error_code: null }],
    [{ result: { isError: true, structuredContent: { error: { code: 'UNAVAILABLE' } } } }, { outcome: 'tool_error', error_code: 'UNAVAILABLE' }],
    [{ result: { isError: true, content: [] } }, { outcome: 'tool_error', error_code: null }],
    [{ error: { code: -32602 } }, { outcome: 'protocol_error', error_code: -32602 }],
    [{ error: {} }, { outcome: 'protocol_error', error_code: null }],
    // Refused before it ran: a limit, tool pinning, a policy; or the client's rules (answered as an unknown tool).
    [{ result: { isError: true, structuredContent: { error: { code: 'RATE_LIMITED' } } } }, { outcome: 'refused', error_code: 'RATE_LIMITED' }],
    [{ result: { isError: true, structuredContent: { error: { code: 'TOOL_NOT_APPROVED' } } } }, { outcome: 'refused', error_code: 'TOOL_NOT_APPROVED' }],
    [{ result: { isError: true, structuredContent: { error: { code: 'FORBIDDEN' } } } }, { outcome: 'refused', error_code: 'FORBIDDEN' }],
    [
      { error: { code: -32602 }, refused: true },
      { outcome: 'refused', error_code: -32602 },
    ],
    [
      { result: { isError: true, content: [] }, refused: true },
      { outcome: 'refused', error_code: null },
    ],
  ])('%j', (call, expected) => {
    expect(outcomeOf(call)).toEqual(expected);
  });
});

describe('parseAuditLines and summarize', () => {
  it('skips lines that are not entries, and counts them', () => {
    const text = [JSON.stringify(entry({})), '{"torn": ', '', JSON.stringify({ hello: 1 }), JSON.stringify(entry({ name: 'b' }))].join('\n');
    const parsed = parseAuditLines(text);
    expect(parsed.entries.map((e) => e.name)).toEqual(['echo', 'b']);
    expect(parsed.skipped).toBe(2);
  });

  it('counts calls and errors per tool and per client, busiest first, with durations', () => {
    const entries = [
      entry({ duration_ms: 1 }),
      // The same tool published under another name (another view) counts in the same row.
      entry({ duration_ms: 3, name: 'everything__echo' }),
      entry({ duration_ms: 2, outcome: 'tool_error', error_code: 'TIMEOUT' }),
      entry({ name: 'config_path', server: 'mcpkit', client: 'bob', client_info: { name: 'cursor', version: '2' }, duration_ms: 7 }),
      entry({ method: 'resources/read', name: 'file:///a', server: null, client: null, client_info: null, outcome: 'protocol_error', error_code: -32602 }),
    ];
    const stats = summarize(entries, { now: Date.parse('2026-11-24T12:00:00Z') });
    expect(stats).toMatchObject({ since: null, calls: 5, errors: 2 });
    expect(stats.by_tool).toEqual([
      { key: 'echo (everything)', calls: 3, errors: 1, p50_ms: 2, p95_ms: 3, max_ms: 3 },
      { key: 'config_path', calls: 1, errors: 0, p50_ms: 7, p95_ms: 7, max_ms: 7 },
      { key: 'resources/read file:///a', calls: 1, errors: 1, p50_ms: 1, p95_ms: 1, max_ms: 1 },
    ]);
    expect(stats.by_client.map((r) => [r.key, r.calls, r.errors])).toEqual([
      ['alice', 3, 1],
      ['(not recorded)', 1, 1],
      ['bob', 1, 0],
    ]);
    expect(stats.by_agent.map((r) => [r.key, r.calls, r.errors])).toEqual([
      ['claude 1.0', 3, 1],
      ['cursor 2', 1, 0],
      ['unknown client', 1, 1],
    ]);
  });

  it('reads lines written before serve.clients: the client software was under "client"', () => {
    const old = { ...entry({}), client: { name: 'claude', version: '0.9' } } as unknown as AuditEntry;
    delete (old as Partial<AuditEntry>).client_info;
    const stats = summarize([old], { now: Date.parse('2026-11-24T12:00:00Z') });
    expect(stats.by_agent.map((r) => r.key)).toEqual(['claude 0.9']);
    expect(stats.by_client.map((r) => r.key)).toEqual(['(not recorded)']);
  });

  it('keeps only the calls since a time', () => {
    const entries = [entry({ time: '2026-11-24T09:00:00Z' }), entry({ time: '2026-11-24T11:30:00Z' }), entry({ time: '2026-11-24T11:59:00Z' })];
    const stats = summarize(entries, { now: Date.parse('2026-11-24T12:00:00Z'), sinceMs: 3_600_000 });
    expect(stats.calls).toBe(2);
    expect(stats.since).toBe('2026-11-24T11:00:00.000Z');
  });
});
