/**
 * Reconnect schedule: exponential with a cap and a bounded number of attempts; an attempt count
 * resets once a connection has stayed up for `stableMs`. Pure.
 */
export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  maxAttempts: number;
  stableMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 250, maxMs: 10_000, maxAttempts: 6, stableMs: 60_000 };

/** For one-off connections (a terminal command, server test): a failure is reported, not retried in the background. */
export const NO_RECONNECT: BackoffPolicy = { baseMs: 0, maxMs: 0, maxAttempts: 0, stableMs: 0 };

/** A server entry's `reconnect` settings (mcp_servers.NAME.reconnect), as the config states them. */
export interface ReconnectSettings {
  attempts?: number;
  first_delay_ms?: number;
  max_delay_ms?: number;
}

/** The schedule a server's `reconnect` settings ask for, DEFAULT_BACKOFF for what they leave out. Pure. */
export function reconnectPolicy(settings: ReconnectSettings | undefined): BackoffPolicy {
  if (!settings) return DEFAULT_BACKOFF;
  return {
    ...DEFAULT_BACKOFF,
    ...(settings.attempts !== undefined ? { maxAttempts: settings.attempts } : {}),
    ...(settings.first_delay_ms !== undefined ? { baseMs: settings.first_delay_ms } : {}),
    ...(settings.max_delay_ms !== undefined ? { maxMs: settings.max_delay_ms } : {}),
  };
}

/** Delay before reconnect attempt number `attempt` (0-based), or undefined when attempts are used up. */
export function backoffDelay(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  return Math.min(policy.baseMs * 2 ** attempt, policy.maxMs);
}

/** Attempts already spent, given how long the last connection stayed up. */
export function attemptsAfterClose(previousAttempts: number, upForMs: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  return upForMs >= policy.stableMs ? 0 : previousAttempts;
}
