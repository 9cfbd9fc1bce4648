import type { Redis as RedisClient } from 'ioredis';
import { ADMIT, RENEW } from './limit-scripts.js';

/**
 * The ioredis connection of serve.store: made lazily, failing fast while disconnected (a limited
 * call is refused at once, never queued), reconnecting for as long as serve runs, with mcpkit's
 * Lua scripts defined on it.
 */

/**
 * A store that answers nothing within this is as good as lost, for the call that waits. Counted on
 * the replica's own clock, so a replica's own pause (a loaded host) counts too: a second was short
 * enough for a busy replica to refuse calls a healthy store had answered.
 */
const COMMAND_TIMEOUT_MS = 3_000;
/** The longest pause between two attempts to reconnect: every replica is back within it of the store's return. */
export const RECONNECT_MAX_MS = 2_000;

export type Commands = RedisClient & {
  mcpkitAdmit(rate: string, inFlight: string, max: number, perMs: number, burst: number, holder: string, lease: number): Promise<[number, number]>;
  mcpkitRenew(inFlight: string, holder: string, lease: number): Promise<number>;
};

/** ioredis's client class, however the bundle presents the CommonJS module (its exports are the class, with Redis on it). */
async function redisClass(): Promise<typeof import('ioredis').Redis> {
  const loaded = (await import('ioredis')) as unknown as { Redis?: unknown; default?: { Redis?: unknown } };
  return (loaded.Redis ?? loaded.default?.Redis ?? loaded.default) as typeof import('ioredis').Redis;
}

/** An ioredis client of the store, not yet connected, with mcpkit's scripts defined. */
export async function storeClient(url: string): Promise<Commands> {
  const Redis = await redisClass();
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(100 * times, RECONNECT_MAX_MS),
  }) as Commands;
  redis.defineCommand('mcpkitAdmit', { numberOfKeys: 2, lua: ADMIT });
  redis.defineCommand('mcpkitRenew', { numberOfKeys: 1, lua: RENEW });
  return redis;
}

/** The store's address for messages and /health: a password in it is masked. */
export function maskedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return 'the configured address';
  }
}

/** Which run of the store answers (INFO server's run_id, new at every start) and how long it has been up. Pure. */
export function storeRun(info: string): { runId: string; uptimeMs: number } | undefined {
  const runId = /^run_id:(\w+)/m.exec(info)?.[1];
  const uptime = Number(/^uptime_in_seconds:(\d+)/m.exec(info)?.[1]);
  return runId === undefined || !Number.isFinite(uptime) ? undefined : { runId, uptimeMs: uptime * 1000 };
}

/**
 * How long a replica that finds the store restarted holds its limited calls back: until every
 * replica has had time to reconnect and put back the places it holds (a reconnection's pause, a
 * command's timeout, and a second of room), counted from the store's start. Pure.
 */
export function settleMs(uptimeMs: number): number {
  return Math.max(0, RECONNECT_MAX_MS + COMMAND_TIMEOUT_MS + 1_000 - uptimeMs);
}
