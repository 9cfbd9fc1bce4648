import type { Redis as RedisClient } from 'ioredis';

/**
 * When each named client of serve --http was last seen, kept in serve.store so that `mcpkit
 * clients` can say it for the whole fleet: one hash, client name to ISO time. A replica writes a
 * client's time at most once per THROTTLE_MS (a busy client costs the store nothing per call), so
 * the time read is at most that old; a store that does not answer loses a write, never a call.
 */

/** The hash under the store's prefix. Braces: a hash tag, as the store's other keys have (one slot of a Redis Cluster). */
export const LAST_SEEN_KEY = '{clients}:last-seen';
export const THROTTLE_MS = 30_000;
/** Most clients whose last write this replica remembers; past it the memory starts again (a write too many, never a leak). */
const REMEMBERED = 10_000;

export class LastSeenWriter {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly store: { setField(key: string, field: string, value: string): Promise<void> },
    private readonly now: () => number = Date.now,
    private readonly throttleMs = THROTTLE_MS,
  ) {}

  /** The client was let in now: written unless this replica wrote it within the throttle. */
  saw(client: string): void {
    const now = this.now();
    const last = this.written.get(client);
    if (last !== undefined && now - last < this.throttleMs) return;
    if (this.written.size >= REMEMBERED) this.written.clear();
    this.written.set(client, now);
    this.store.setField(LAST_SEEN_KEY, client, new Date(now).toISOString()).catch(() => undefined);
  }
}

/** ioredis's client class, however the bundle presents the CommonJS module. */
async function redisClass(): Promise<typeof import('ioredis').Redis> {
  const loaded = (await import('ioredis')) as unknown as { Redis?: unknown; default?: { Redis?: unknown } };
  return (loaded.Redis ?? loaded.default?.Redis ?? loaded.default) as typeof import('ioredis').Redis;
}

/**
 * The last-seen times the store holds for these clients (a short connection of its own, for a
 * command); undefined when the store cannot be reached within a few seconds.
 */
export async function readLastSeen(
  settings: { url: string; prefix?: string | undefined },
  names: readonly string[],
): Promise<Record<string, string> | undefined> {
  if (!names.length) return {};
  const Redis = await redisClass();
  const redis: RedisClient = new Redis(settings.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const times = await redis.hmget(`${settings.prefix ?? 'mcpkit'}:${LAST_SEEN_KEY}`, ...names);
    // Only a time is shown: whatever else a store holds there is not printed to a terminal.
    return Object.fromEntries(names.flatMap((name, i) => (isTime(times[i]) ? [[name, new Date(Date.parse(times[i]!)).toISOString()]] : [])));
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

const isTime = (text: string | null | undefined): boolean =>
  typeof text === 'string' && /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(text) && !Number.isNaN(Date.parse(text));
