import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, reconnectPolicy, type BackoffPolicy, type ReconnectSettings } from '../../src/core/backoff.js';
import { serverSchema } from '../../src/config/schema/server-schema.js';

/** mcp_servers.NAME.reconnect: what each setting changes of serve's own schedule, and what the schema refuses. */
describe('reconnectPolicy', () => {
  const cases: [string, ReconnectSettings | undefined, BackoffPolicy][] = [
    ["no setting: serve's own schedule", undefined, DEFAULT_BACKOFF],
    ['an empty setting: the same', {}, DEFAULT_BACKOFF],
    ['attempts only', { attempts: 3 }, { ...DEFAULT_BACKOFF, maxAttempts: 3 }],
    ['first_delay_ms only', { first_delay_ms: 125 }, { ...DEFAULT_BACKOFF, baseMs: 125 }],
    ['max_delay_ms only', { max_delay_ms: 2000 }, { ...DEFAULT_BACKOFF, maxMs: 2000 }],
    ['all three', { attempts: 10, first_delay_ms: 50, max_delay_ms: 500 }, { ...DEFAULT_BACKOFF, maxAttempts: 10, baseMs: 50, maxMs: 500 }],
  ];
  it.each(cases)('%s', (_, settings, policy) => expect(reconnectPolicy(settings)).toEqual(policy));
});

describe('mcp_servers.NAME.reconnect in the schema', () => {
  const entry = (reconnect: unknown) => serverSchema.safeParse({ command: 'node', reconnect });
  it.each([{ attempts: 1 }, { attempts: 20, first_delay_ms: 10, max_delay_ms: 600_000 }, { first_delay_ms: 60_000, max_delay_ms: 60_000 }, {}])(
    'takes %j',
    (reconnect) => expect(entry(reconnect).success).toBe(true),
  );
  it.each([
    // None, or a flood of starts of a broken server: not a schedule.
    { attempts: 0 },
    { attempts: 21 },
    { first_delay_ms: 0 },
    { first_delay_ms: 9 },
    { max_delay_ms: 600_001 },
    { attempts: 1.5 },
    { delay: 100 },
    // A first wait past the longest (given, or the default 10000).
    { first_delay_ms: 5000, max_delay_ms: 100 },
    { first_delay_ms: 60_000 },
  ])('refuses %j', (reconnect) => expect(entry(reconnect).success).toBe(false));
});
