import { randomUUID } from 'node:crypto';
import type { Redis as RedisClient } from 'ioredis';
import { ToolError } from '../core/errors.js';
import { sleepUnless, type Admission, type Rate } from '../core/limits.js';
import type { Logger } from '../core/logger.js';
import { DropLog } from './drop-log.js';
import { PlaceKeeper } from './place-keeper.js';
import { StoreChannel, type Hearer } from './store-channel.js';
import { maskedUrl, storeClient, type Commands } from './store-client.js';
import type { SharedTaskRecord, StoreMessage } from './store-messages.js';
import { StoreSigner } from './store-signing.js';
import { withKey } from './store-trust.js';

export type { CallMessage, SharedTaskRecord, StoreMessage, TaskMessage } from './store-messages.js';
export type { Hearer } from './store-channel.js';
export { maskedUrl } from './store-client.js';

/**
 * Where replicas of `serve --http` keep what they share (serve.store): a Redis or Valkey server,
 * through ioredis: the limits of named clients and of upstreams (so that `rate: 3/min` is 3 across
 * every replica), tasks' records, parked questions, and a channel between replicas. Fail closed:
 * while the store cannot be reached, a limited call is refused (UNAVAILABLE, naming the store),
 * never run without its limit; ioredis reconnects by itself, and when the store returns having
 * lost what it kept (a restart without persistence) every replica puts back the places its calls
 * hold before limited calls go on. What confers authority (a message on the channel, a task's
 * record, a question) is signed with serve.store.key (./store-signing.ts); what is not is dropped.
 */

/** How long a place in flight is held without its replica renewing it: a replica that dies frees its places within this. */
export const LEASE_MS = 15_000;

export interface StoreSettings {
  url: string;
  /** serve.store.key: what the replicas sign with (store-trust.ts says what is strong enough). */
  key: string | undefined;
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

export class SharedStore {
  private readonly redis: Commands;
  private readonly prefix: string;
  private readonly signer: StoreSigner;
  private readonly drops: DropLog;
  private readonly places: PlaceKeeper;
  private readonly channelOf: StoreChannel;
  private lastError?: string;
  private readonly leaseMs: number;
  readonly url: string;
  /** This process among the replicas: its tasks' records name it, its lease says it is alive, it signs as it. */
  readonly holder = randomUUID();

  private constructor(
    redis: Commands,
    settings: StoreSettings & { key: string },
    private readonly logger: Logger,
  ) {
    this.redis = redis;
    this.url = maskedUrl(settings.url);
    this.prefix = settings.prefix ?? 'mcpkit';
    this.signer = new StoreSigner(settings.key, this.prefix);
    this.drops = new DropLog(logger);
    this.leaseMs = settings.leaseMs ?? settings.lease_ms ?? LEASE_MS;
    this.places = new PlaceKeeper(redis, this.url, { key: this.leaseKey(this.holder), ms: this.leaseMs }, logger);
    this.channelOf = new StoreChannel(redis, `${this.prefix}:tasks`, this.signer, this.holder, this.drops);
    redis.on('error', (error: Error) => {
      this.lastError = error.message;
      this.places.wentDown(error.message);
    });
    redis.on('close', () => this.places.wentDown('the connection closed'));
    redis.on('ready', () => {
      const wasLost = this.lastError !== undefined || !this.places.quiet;
      this.lastError = undefined;
      this.places.cameBack(wasLost);
    });
  }

  /** Connects to the store; a store that cannot be reached is an error naming it, and so is a missing or weak key. */
  static async open(settings: StoreSettings, logger: Logger): Promise<SharedStore> {
    const store = new SharedStore(await storeClient(settings.url), withKey(settings), logger);
    try {
      await store.redis.connect();
      store.places.quiet = false;
    } catch (error) {
      const why = (store.lastError ?? (error as Error).message).replace(/\.$/, '');
      await store.close();
      throw new ToolError('UNAVAILABLE', `serve.store: cannot reach ${store.url}: ${why}.`, {
        details: { store: store.url },
        hint: 'Start the Redis (or Valkey) server, or correct serve.store.url; with serve.store.required: false serve starts anyway and refuses limited calls until it answers.',
      });
    }
    await store.places.settling;
    return store;
  }

  /** Connects in the background (serve.store.required: false): until it answers, limited calls are refused. */
  static async openLater(settings: StoreSettings, logger: Logger): Promise<SharedStore> {
    const keyed = withKey(settings);
    try {
      return await SharedStore.open(keyed, logger);
    } catch (error) {
      logger.warn(`${(error as Error).message} serve starts without it (serve.store.required: false): limited calls are refused until it answers.`);
      const store = new SharedStore(await storeClient(settings.url), keyed, logger);
      store.lastError = (error as Error).message;
      store.places.quiet = false;
      // Not lazy any more: ioredis connects, and reconnects, by itself from here.
      store.redis.connect().catch(() => undefined);
      return store;
    }
  }

  /** A field of a hash under the store's prefix: store/last-seen.ts keeps when each client was last seen there. */
  async setField(key: string, field: string, value: string): Promise<void> {
    await this.redis.hset(`${this.prefix}:${key}`, field, value);
  }

  status(): StoreStatus {
    const state = this.redis.status === 'ready' ? 'ready' : this.lastError !== undefined ? 'unreachable' : 'connecting';
    return { url: this.url, state, ...(state !== 'ready' && this.lastError ? { error: this.lastError } : {}) };
  }

  /**
   * The store's connection and its key names, for what else replicas keep there (records of
   * their own). Only this class signs: a record that confers authority goes through a method here.
   */
  connection(): RedisClient {
    return this.redis;
  }

  /** A key of this gateway's (under serve.store.prefix); `{tag}` in the name keeps related keys in one Cluster slot. */
  keyOf(name: string): string {
    return `${this.prefix}:${name}`;
  }

  /**
   * One call's place under a name's limits (a client's, `client:NAME`, or a server's,
   * `server:NAME`), across every replica: admitted (release() gives the place back), or why not.
   */
  async admit(name: string, limits: { rate?: Rate | undefined; maxConcurrent?: number | undefined }): Promise<Admission> {
    await this.places.settling;
    const { rate, inFlight } = this.keys(name);
    const holder = randomUUID();
    const max = limits.maxConcurrent ?? 0;
    let answer: [number, number];
    try {
      answer = await this.redis.mcpkitAdmit(rate, inFlight, max, (limits.rate?.perSecond ?? 0) / 1000, limits.rate?.burst ?? 0, holder, this.leaseMs);
    } catch (error) {
      // A late answer may have taken a place: given back (run after the admit), not held for the lease.
      if (max > 0) this.places.release(inFlight, holder);
      throw this.lost(error, 'the call was refused so limits hold');
    }
    const [verdict, retryAfterMs] = answer;
    if (verdict === 1) return { ok: false, retryAfterMs, why: `${max} calls are already in flight (max_concurrent: ${max}, across replicas)` };
    if (verdict === 2) return { ok: false, retryAfterMs, why: `over its rate of ${limits.rate!.text} (across replicas)` };
    if (max === 0) return { ok: true, release: () => {} };
    this.places.hold(inFlight, holder);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.places.release(inFlight, holder);
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
    this.places.stop();
    // A replica that stops on purpose gives its lease back: its running tasks are failed at once elsewhere.
    if (this.redis.status === 'ready') await this.redis.del(this.leaseKey(this.holder)).catch(() => undefined);
    this.channelOf.close();
    this.redis.disconnect();
  }

  /** A task's record, signed, kept until its ttl (every replica answers tasks/get from it). */
  async saveTask(id: string, record: SharedTaskRecord, ttlMs: number): Promise<void> {
    const key = this.taskKey(id);
    try {
      await this.redis.set(key, this.signer.seal('task', key, this.holder, record, Date.now()), 'PX', Math.max(1, Math.ceil(ttlMs)));
    } catch (error) {
      throw this.lost(error, 'what the replicas share there cannot be read or written now');
    }
  }

  /** A task's record when a replica signed it for this task; one that is not is dropped, and said. */
  async loadTask(id: string): Promise<SharedTaskRecord | undefined> {
    const key = this.taskKey(id);
    let text: string | null;
    try {
      text = await this.redis.get(key);
    } catch (error) {
      throw this.lost(error, 'what the replicas share there cannot be read or written now');
    }
    if (text === null) return undefined;
    const opened = this.signer.open(text, key, ['task']);
    if (!opened.ok) return void this.drops.dropped(opened.why, `the record of task ${id}`);
    const record = opened.body as Partial<SharedTaskRecord> | null;
    return typeof record?.owner === 'string' && typeof record.holder === 'string' && typeof record.task === 'object' ? (record as SharedTaskRecord) : undefined;
  }

  /** Whether the replica holding a task is alive: its lease is renewed while it runs. */
  async holderAlive(holder: string): Promise<boolean> {
    if (holder === this.holder) return true;
    try {
      return (await this.redis.exists(this.leaseKey(holder))) === 1;
    } catch (error) {
      throw this.lost(error, 'what the replicas share there cannot be read or written now');
    }
  }

  /** Tells the replicas a message (a cancel, answers, a passed call, its reply), signed by this replica. */
  async tellTask(message: StoreMessage): Promise<void> {
    try {
      await this.channelOf.tell(message);
    } catch (error) {
      throw this.lost(error, 'what the replicas share there cannot be read or written now');
    }
  }

  /** Hears the replicas' messages whose signature holds, each once, just sent (./store-channel.ts). */
  hearTasks(heard: Hearer): Promise<void> {
    return this.channelOf.hear(heard);
  }

  /** An open question of a person's approval (mcp/pipeline/person-asker.ts): its state, bound to the call it was asked for, signed. */
  async openQuestion(state: string, call: string, ttlMs: number): Promise<void> {
    const key = this.questionKey(state);
    try {
      await this.redis.set(key, this.signer.seal('question', key, this.holder, call, Date.now()), 'PX', ttlMs);
    } catch (error) {
      throw this.lost(error, 'what the replicas share there cannot be read or written now');
    }
  }

  /** The call a question was asked for, taken once (GETDEL): undefined when it was never asked (by a replica), expired or taken. */
  async takeQuestion(state: string): Promise<string | undefined> {
    const key = this.questionKey(state);
    let text: string | null;
    try {
      text = await this.redis.getdel(key);
    } catch (error) {
      throw this.lost(error, 'what the replicas share there cannot be read or written now');
    }
    if (text === null) return undefined;
    const opened = this.signer.open(text, key, ['question']);
    if (!opened.ok) return void this.drops.dropped(opened.why, 'a question of approval');
    return typeof opened.body === 'string' ? opened.body : undefined;
  }

  private keys(name: string): { rate: string; inFlight: string } {
    // One hash tag per name: both keys in one slot of a Redis Cluster.
    const tag = `${this.prefix}:{${name}}`;
    return { rate: `${tag}:rate`, inFlight: `${tag}:inflight` };
  }

  private taskKey(id: string): string {
    return `${this.prefix}:{task:${id}}`;
  }

  private questionKey(state: string): string {
    return `${this.prefix}:{question:${state}}`;
  }

  private leaseKey(holder: string): string {
    return `${this.prefix}:{lease:${holder}}`;
  }

  /** What keeps records of its own in the store (store/replica-records.ts): the connection, the key prefix, the lease, this replica. */
  recordKeeping(): { redis: RedisClient; prefix: string; leaseMs: number; holder: string } {
    return { redis: this.redis, prefix: this.prefix, leaseMs: this.leaseMs, holder: this.holder };
  }

  /** What an agent is told when the store does not answer (the client library's reason goes to the operator's log and /health). */
  private lost(error: unknown, outcome: string): ToolError {
    this.logger.debug(`serve.store (${this.url}): ${(error as Error).message}`);
    return new ToolError('UNAVAILABLE', `The shared store (${this.url}) is unreachable; ${outcome}. Retry shortly or ask the operator to check serve.store.`, {
      details: { store: this.url },
      hint: 'Calls without limits go on; mcpkit reconnects by itself, and limited calls are admitted again once the store answers.',
    });
  }
}
