import type { Redis as RedisClient } from 'ioredis';

/**
 * Each replica of `serve --http` that shares a store (serve.store) keeps a record of itself there:
 * who it is, what it runs and serves, how busy it is. The admin's /health reads them all
 * (mcp/http/fleet.ts). A record lives twice the lease (serve.store.lease_ms) and is written again every
 * third of it, so a replica that died shows as not heard from for one lease more, then is gone; one
 * that stops on purpose takes its record away. Records confer nothing: they are shown, never acted on.
 */

/** One replica as it tells the others. */
export interface ReplicaRecord {
  /** serve.replica_id, else a name made from `holder`. */
  id: string;
  /** Its identity in the store (SharedStore.holder). */
  holder: string;
  version: string;
  started_at: string;
  /** The digest of the config it serves (config/config-digest.ts) and its generation there. */
  config: { digest: string; generation: number };
  /** Its tools/call requests in flight now. */
  in_flight: number;
  /** When it wrote this, by its own clock. */
  heartbeat_at: string;
  /** Its serve.store.lease_ms: the record lives twice this. */
  lease_ms: number;
}

/** A record as read back: how long ago it was written, from what the store says is left of its life (no clock of a replica involved). */
export interface ListedRecord extends ReplicaRecord {
  seen_ms_ago: number;
}

/** What keeping records needs of the store (SharedStore.recordKeeping). */
export interface RecordKeeping {
  redis: RedisClient;
  prefix: string;
  leaseMs: number;
  holder: string;
}

/** Most records read at once: a store holding more than this is not a fleet anyone runs. */
export const MAX_LISTED = 256;
const MAX_TEXT = 200;

const text = (value: unknown, max = MAX_TEXT): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;
const count = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 1e12;

/**
 * A record as the store holds it, if it is one: every field of its type and bounded, so that what
 * another process wrote there can neither break /health nor grow it. Pure.
 */
export function readRecord(stored: string | null | undefined): ReplicaRecord | undefined {
  if (typeof stored !== 'string' || stored.length > 4096) return undefined;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(stored) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const config = value.config as Record<string, unknown> | undefined;
  if (!text(value.id, 64) || !text(value.holder, 64) || !text(value.version, 64) || !text(value.started_at, 40) || !text(value.heartbeat_at, 40))
    return undefined;
  if (!config || typeof config !== 'object' || !text(config.digest, 128) || !count(config.generation)) return undefined;
  if (!count(value.in_flight) || !count(value.lease_ms) || value.lease_ms === 0) return undefined;
  return {
    id: value.id,
    holder: value.holder,
    version: value.version,
    started_at: value.started_at,
    config: { digest: config.digest, generation: config.generation },
    in_flight: value.in_flight,
    heartbeat_at: value.heartbeat_at,
    lease_ms: value.lease_ms,
  };
}

export class ReplicaRecords {
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly store: RecordKeeping,
    /** This replica now (read at every heartbeat). */
    private readonly self: () => Omit<ReplicaRecord, 'holder' | 'heartbeat_at' | 'lease_ms'>,
  ) {
    this.timer = setInterval(() => void this.beat(), Math.max(10, Math.floor(store.leaseMs / 3)));
    this.timer.unref();
    void this.beat();
  }

  /** This replica's record as it is now. */
  record(): ReplicaRecord {
    return { ...this.self(), holder: this.store.holder, heartbeat_at: new Date().toISOString(), lease_ms: this.store.leaseMs };
  }

  /** Writes this replica's record (and keeps the index of records alive); a store that does not answer is tried again at the next beat. */
  async beat(): Promise<void> {
    if (this.closed) return;
    const ttl = 2 * this.store.leaseMs;
    await this.store.redis
      .multi()
      .set(this.key(this.store.holder), JSON.stringify(this.record()), 'PX', ttl)
      .sadd(this.index(), this.store.holder)
      .pexpire(this.index(), ttl)
      .exec()
      .catch(() => undefined);
  }

  /**
   * Every replica's record in the store, and how many entries could not be read as one. Throws when
   * the store does not answer. Entries whose record has expired are dropped from the index.
   */
  async list(): Promise<{ records: ListedRecord[]; unreadable: number }> {
    const { redis } = this.store;
    const holders = (await redis.smembers(this.index())).slice(0, MAX_LISTED);
    if (!holders.length) return { records: [], unreadable: 0 };
    const batch = redis.pipeline();
    for (const holder of holders) batch.get(this.key(holder)).pttl(this.key(holder));
    const answers = (await batch.exec()) ?? [];
    const records: ListedRecord[] = [];
    const expired: string[] = [];
    let unreadable = 0;
    holders.forEach((holder, i) => {
      const [stored, left] = [answers[2 * i]?.[1], answers[2 * i + 1]?.[1]];
      if (stored === null || stored === undefined) return void expired.push(holder);
      const record = readRecord(stored as string);
      if (!record || record.holder !== holder || typeof left !== 'number') return void unreadable++;
      records.push({ ...record, seen_ms_ago: Math.max(0, 2 * record.lease_ms - Math.max(0, left)) });
    });
    if (expired.length) await redis.srem(this.index(), ...expired).catch(() => undefined);
    return { records, unreadable };
  }

  /** Stops the heartbeats and takes this replica's record away (a replica that stops on purpose is not missed). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    if (this.store.redis.status !== 'ready') return;
    await this.store.redis
      .multi()
      .del(this.key(this.store.holder))
      .srem(this.index(), this.store.holder)
      .exec()
      .catch(() => undefined);
  }

  // One hash tag for the index and the records: one slot of a Redis Cluster, so they are read together.
  private index(): string {
    return `${this.store.prefix}:{replicas}`;
  }

  private key(holder: string): string {
    return `${this.store.prefix}:{replicas}:${holder}`;
  }
}
