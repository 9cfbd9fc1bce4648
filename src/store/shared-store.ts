import { randomUUID } from 'node:crypto';
import type { Redis as RedisClient } from 'ioredis';
import { ToolError } from '../core/errors.js';
import { sleepUnless, type Admission, type Rate } from '../core/limits.js';
import type { Logger } from '../core/logger.js';
import { ADMIT, RENEW } from './limit-scripts.js';

/**
 * Where replicas of `serve --http` keep what they share (serve.store): a Redis or Valkey server,
 * through ioredis. Today: the limits of named clients and of upstreams, so that `rate: 3/min` is 3
 * across every replica. Fail closed: while the store cannot be reached, a limited call is refused
 * (UNAVAILABLE, naming the store), never run without its limit; ioredis reconnects by itself and
 * the next call after the store's return is admitted as before.
 */

/** A task as the replicas share it: its owner, the replica holding it, and what tasks/get answers. */
export interface SharedTaskRecord {
  owner: string;
  holder: string;
  /** The DetailedTask as tasks/get answers it (its status among it). */
  task: Record<string, unknown>;
}

/** What one replica tells the one holding a task. */
export type TaskMessage =
  { kind: 'cancel'; id: string; owner: string } | { kind: 'update'; id: string; owner: string; inputResponses: Record<string, unknown> };

/**
 * A call one replica passes to another (a bridged question's retry, which only the replica that
 * parked the call can go on with), and the answer sent back. `caller` is who the first replica let in.
 */
export type CallMessage =
  | {
      kind: 'call';
      id: string;
      holder: string;
      from: string;
      path: string;
      body: Record<string, unknown>;
      headers: Record<string, string>;
      caller: { id: string; via: string; client?: string };
    }
  | { kind: 'reply'; id: string; to: string; outcome: { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } } };

/** Everything the replicas tell one another on the store's channel. */
export type StoreMessage = TaskMessage | CallMessage;

/** How long a place in flight is held without its replica renewing it: a replica that dies frees its places within this. */
export const LEASE_MS = 15_000;
/** A store that answers nothing within this is as good as lost, for the call that waits. */
const COMMAND_TIMEOUT_MS = 1_000;

export interface StoreSettings {
  url: string;
  prefix?: string | undefined;
  /** serve.store.lease_ms (LEASE_MS when absent). */
  lease_ms?: number | undefined;
  /** How long a place in flight outlives its replica (default LEASE_MS); renewed every third of it. */
  leaseMs?: number;
}

export interface StoreStatus {
  /** The store's address, its password masked. */
  url: string;
  state: 'ready' | 'connecting' | 'unreachable';
  error?: string;
}

type Commands = RedisClient & {
  mcpkitAdmit(rate: string, inFlight: string, max: number, perMs: number, burst: number, holder: string, lease: number): Promise<[number, number]>;
  mcpkitRenew(inFlight: string, holder: string, lease: number): Promise<number>;
};

/** ioredis's client class, however the bundle presents the CommonJS module (its exports are the class, with Redis on it). */
async function redisClass(): Promise<typeof import('ioredis').Redis> {
  const loaded = (await import('ioredis')) as unknown as { Redis?: unknown; default?: { Redis?: unknown } };
  return (loaded.Redis ?? loaded.default?.Redis ?? loaded.default) as typeof import('ioredis').Redis;
}

/** An ioredis client of the store, not yet connected, with mcpkit's scripts defined. */
async function client(settings: StoreSettings): Promise<Commands> {
  const Redis = await redisClass();
  const redis = new Redis(settings.url, {
    lazyConnect: true,
    // Fail fast while disconnected: a limited call is refused at once, not queued.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    // Reconnects for as long as serve runs: the replicas recover by themselves.
    retryStrategy: (times) => Math.min(100 * times, 2_000),
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

export class SharedStore {
  private readonly redis: Commands;
  private readonly prefix: string;
  private lastError?: string;
  private opening = true;
  /** Places in flight this replica holds, renewed until released: key -> holders. */
  private readonly held = new Map<string, Set<string>>();
  private readonly renewer: NodeJS.Timeout;
  private readonly leaseMs: number;
  readonly url: string;

  private constructor(redis: Commands, settings: StoreSettings, logger: Logger) {
    this.redis = redis;
    this.url = maskedUrl(settings.url);
    this.prefix = settings.prefix ?? 'mcpkit';
    this.leaseMs = settings.leaseMs ?? settings.lease_ms ?? LEASE_MS;
    redis.on('error', (error: Error) => {
      // While opening, the outcome of open says it once.
      if (this.lastError !== error.message && !this.opening)
        logger.warn(`serve.store (${this.url}): ${error.message}; limited calls are refused until it answers again`);
      this.lastError = error.message;
    });
    redis.on('ready', () => {
      if (this.lastError !== undefined) logger.info(`serve.store (${this.url}) answers again`);
      this.lastError = undefined;
    });
    this.renewer = setInterval(() => void this.renew(), Math.max(10, Math.floor(this.leaseMs / 3)));
    this.renewer.unref();
  }

  /** Connects to the store; a store that cannot be reached is an error naming it. */
  static async open(settings: StoreSettings, logger: Logger): Promise<SharedStore> {
    const store = new SharedStore(await client(settings), settings, logger);
    try {
      await store.redis.connect();
      store.opening = false;
      await store.renew();
    } catch (error) {
      const why = (store.lastError ?? (error as Error).message).replace(/\.$/, '');
      await store.close();
      throw new ToolError('UNAVAILABLE', `serve.store: cannot reach ${store.url}: ${why}.`, {
        details: { store: store.url },
        hint: 'Start the Redis (or Valkey) server, or correct serve.store.url; with serve.store.required: false serve starts anyway and refuses limited calls until it answers.',
      });
    }
    return store;
  }

  /** Connects in the background (serve.store.required: false): until it answers, limited calls are refused. */
  static async openLater(settings: StoreSettings, logger: Logger): Promise<SharedStore> {
    try {
      return await SharedStore.open(settings, logger);
    } catch (error) {
      logger.warn(`${(error as Error).message} serve starts without it (serve.store.required: false): limited calls are refused until it answers.`);
      const store = new SharedStore(await client(settings), settings, logger);
      store.lastError = (error as Error).message;
      store.opening = false;
      // Not lazy any more: ioredis connects, and reconnects, by itself from here.
      store.redis.connect().catch(() => undefined);
      return store;
    }
  }

  status(): StoreStatus {
    const state = this.redis.status === 'ready' ? 'ready' : this.lastError !== undefined ? 'unreachable' : 'connecting';
    return { url: this.url, state, ...(state !== 'ready' && this.lastError ? { error: this.lastError } : {}) };
  }

  /**
   * One call's place under a name's limits (a client's, `client:NAME`, or a server's,
   * `server:NAME`), across every replica: admitted (release() gives the place back), or why not.
   */
  async admit(name: string, limits: { rate?: Rate | undefined; maxConcurrent?: number | undefined }): Promise<Admission> {
    const { rate, inFlight } = this.keys(name);
    const holder = randomUUID();
    const max = limits.maxConcurrent ?? 0;
    let answer: [number, number];
    try {
      answer = await this.redis.mcpkitAdmit(rate, inFlight, max, (limits.rate?.perSecond ?? 0) / 1000, limits.rate?.burst ?? 0, holder, this.leaseMs);
    } catch (error) {
      throw this.lost(error);
    }
    const [verdict, retryAfterMs] = answer;
    if (verdict === 1) return { ok: false, retryAfterMs, why: `${max} calls are already in flight (max_concurrent: ${max}, across replicas)` };
    if (verdict === 2) return { ok: false, retryAfterMs, why: `over its rate of ${limits.rate!.text} (across replicas)` };
    if (max === 0) return { ok: true, release: () => {} };
    this.hold(inFlight, holder);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.held.get(inFlight)?.delete(holder);
        // A release that fails is given back by the lease instead.
        this.redis.zrem(inFlight, holder).catch(() => undefined);
      },
    };
  }

  /**
   * A place under a name's limits, waiting for one up to `maxWaitMs` (an upstream's queue_ms): the
   * store is asked again when the rate says a token is due, or every 25 ms for a place in flight
   * (a place freed on another replica says nothing here).
   */
  async wait(
    name: string,
    limits: { rate?: Rate | undefined; maxConcurrent?: number | undefined },
    maxWaitMs: number,
    signal?: AbortSignal,
  ): Promise<Admission> {
    const deadline = performance.now() + maxWaitMs;
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new Error('cancelled');
      const admission = await this.admit(name, limits);
      if (admission.ok) return admission;
      const left = deadline - performance.now();
      if (left <= 0) return admission;
      const overRate = admission.why.startsWith('over its rate');
      if (overRate && admission.retryAfterMs > left) return admission;
      const pause = Math.min(left, overRate ? admission.retryAfterMs : 25);
      await sleepUnless(pause, signal);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.renewer);
    // A replica that stops on purpose gives its lease back: its running tasks are failed at once elsewhere.
    if (this.redis.status === 'ready') await this.redis.del(this.leaseKey(this.holder)).catch(() => undefined);
    this.subscriber?.disconnect();
    this.redis.disconnect();
  }

  private keys(name: string): { rate: string; inFlight: string } {
    // One hash tag per name: both keys in one slot of a Redis Cluster.
    const tag = `${this.prefix}:{${name}}`;
    return { rate: `${tag}:rate`, inFlight: `${tag}:inflight` };
  }

  private hold(key: string, holder: string): void {
    let holders = this.held.get(key);
    if (!holders) this.held.set(key, (holders = new Set()));
    holders.add(holder);
  }

  /** This process among the replicas: its tasks' records name it, its lease says it is alive. */
  readonly holder = randomUUID();
  private subscriber?: RedisClient;

  /** A task's record, kept until its ttl (every replica answers tasks/get from it). */
  async saveTask(id: string, record: SharedTaskRecord, ttlMs: number): Promise<void> {
    try {
      await this.redis.set(this.taskKey(id), JSON.stringify(record), 'PX', Math.max(1, Math.ceil(ttlMs)));
    } catch (error) {
      throw this.lost(error);
    }
  }

  async loadTask(id: string): Promise<SharedTaskRecord | undefined> {
    let text: string | null;
    try {
      text = await this.redis.get(this.taskKey(id));
    } catch (error) {
      throw this.lost(error);
    }
    return text === null ? undefined : (JSON.parse(text) as SharedTaskRecord);
  }

  /** Whether the replica holding a task is alive: its lease is renewed while it runs. */
  async holderAlive(holder: string): Promise<boolean> {
    if (holder === this.holder) return true;
    try {
      return (await this.redis.exists(this.leaseKey(holder))) === 1;
    } catch (error) {
      throw this.lost(error);
    }
  }

  /** Tells the replicas a task's message (a cancel, answers): the one holding the task acts on it. */
  async tellTask(message: StoreMessage): Promise<void> {
    try {
      await this.redis.publish(this.channel(), JSON.stringify(message));
    } catch (error) {
      throw this.lost(error);
    }
  }

  private readonly hearers = new Set<(message: StoreMessage) => void>();

  /** Hears the replicas' messages (one connection of its own for every hearer: a subscribed one sends nothing else). */
  async hearTasks(heard: (message: StoreMessage) => void): Promise<void> {
    this.hearers.add(heard);
    if (this.subscriber) return;
    const subscriber = (this.subscriber = this.redis.duplicate());
    subscriber.on('error', () => undefined); // said by the main connection
    subscriber.on('message', (_channel: string, text: string) => {
      let message: StoreMessage;
      try {
        message = JSON.parse(text) as StoreMessage;
      } catch {
        return; // not a message of mcpkit's
      }
      for (const hearer of this.hearers) hearer(message);
    });
    // Subscribed whenever it is connected: at once, or once the store answers (required: false);
    // nothing is queued while it is not, and a reconnection subscribes again.
    const subscribe = () => void subscriber.subscribe(this.channel()).catch(() => undefined);
    subscriber.on('ready', subscribe);
    if (subscriber.status === 'wait') await subscriber.connect().catch(() => undefined);
    else if (subscriber.status === 'ready') subscribe();
  }

  /** An open question of a person's approval (mcp/person-asker.ts): its state, bound to the call it was asked for. */
  async openQuestion(state: string, call: string, ttlMs: number): Promise<void> {
    try {
      await this.redis.set(`${this.prefix}:{question:${state}}`, call, 'PX', ttlMs);
    } catch (error) {
      throw this.lost(error);
    }
  }

  /** The call a question was asked for, taken once (GETDEL): undefined when it was never asked, expired or taken. */
  async takeQuestion(state: string): Promise<string | undefined> {
    try {
      return (await this.redis.getdel(`${this.prefix}:{question:${state}}`)) ?? undefined;
    } catch (error) {
      throw this.lost(error);
    }
  }

  private taskKey(id: string): string {
    return `${this.prefix}:{task:${id}}`;
  }

  private leaseKey(holder: string): string {
    return `${this.prefix}:{lease:${holder}}`;
  }

  private channel(): string {
    return `${this.prefix}:tasks`;
  }

  private async renew(): Promise<void> {
    await this.redis.set(this.leaseKey(this.holder), '1', 'PX', this.leaseMs).catch(() => undefined);
    for (const [key, holders] of this.held) {
      if (!holders.size) {
        this.held.delete(key);
        continue;
      }
      for (const holder of holders) await this.redis.mcpkitRenew(key, holder, this.leaseMs).catch(() => undefined);
    }
  }

  /** What keeps records of its own in the store (store/replica-records.ts): the connection, the key prefix, the lease, this replica. */
  recordKeeping(): { redis: RedisClient; prefix: string; leaseMs: number; holder: string } {
    return { redis: this.redis, prefix: this.prefix, leaseMs: this.leaseMs, holder: this.holder };
  }

  private lost(error: unknown): ToolError {
    const why = (error as Error).message;
    return new ToolError('UNAVAILABLE', `The shared store (serve.store, ${this.url}) does not answer (${why}): a call with limits is not run without them.`, {
      details: { store: this.url },
      hint: 'Calls without limits go on; mcpkit reconnects by itself, and limited calls are admitted again once the store answers. Try again shortly.',
    });
  }
}
