import type { Redis as RedisClient } from 'ioredis';
import type { DropLog } from './drop-log.js';
import { isStoreMessage, type StoreMessage } from './store-messages.js';
import { ReplayGuard, type Purpose, type StoreSigner } from './store-signing.js';

/** A message heard on the channel, its signature checked: who sent it. */
export type Hearer = (message: StoreMessage, sender: string) => void;

const MESSAGES: readonly Purpose[] = ['call', 'reply', 'cancel', 'update'];

/**
 * The replicas' channel in serve.store (pub/sub): every message signed by its sender, and taken
 * only when its signature holds, it was sent within the freshness window, and it was not heard
 * before. What is not is dropped and said (rate-limited).
 */
export class StoreChannel {
  private readonly replays = new ReplayGuard();
  private readonly hearers = new Set<Hearer>();
  private subscriber?: RedisClient;

  constructor(
    private readonly redis: RedisClient,
    private readonly name: string,
    private readonly signer: StoreSigner,
    private readonly sender: string,
    private readonly drops: DropLog,
  ) {}

  async tell(message: StoreMessage): Promise<void> {
    await this.redis.publish(this.name, this.signer.seal(message.kind, this.name, this.sender, message, Date.now()));
  }

  /** Hears the replicas' messages (one connection of its own for every hearer: a subscribed one sends nothing else). */
  async hear(heard: Hearer): Promise<void> {
    this.hearers.add(heard);
    if (this.subscriber) return;
    const subscriber = (this.subscriber = this.redis.duplicate());
    subscriber.on('error', () => undefined); // said by the main connection
    subscriber.on('message', (_channel: string, text: string) => {
      const message = this.open(text);
      if (message) for (const hearer of this.hearers) hearer(message.body, message.sender);
    });
    // Subscribed whenever it is connected: at once, or once the store answers (required: false);
    // nothing is queued while it is not, and a reconnection subscribes again.
    const subscribe = () => void subscriber.subscribe(this.name).catch(() => undefined);
    subscriber.on('ready', subscribe);
    if (subscriber.status === 'wait') await subscriber.connect().catch(() => undefined);
    else if (subscriber.status === 'ready') subscribe();
  }

  close(): void {
    this.subscriber?.disconnect();
  }

  /** A message when a replica signed it, just now, once. */
  private open(text: string): { body: StoreMessage; sender: string } | undefined {
    const opened = this.signer.open(text, this.name, MESSAGES);
    if (!opened.ok) return void this.drops.dropped(opened.why, 'a message on the channel');
    const fresh = this.replays.admit(opened.sentAt, opened.nonce, Date.now());
    if (fresh !== true) return void this.drops.dropped(fresh, 'a message on the channel');
    const body = opened.body;
    if (!isStoreMessage(body, opened.purpose)) return undefined; // signed by a replica of another version
    // A passed call's answer goes back to whoever signed it, never to a replica it merely names.
    if (body.kind === 'call' && body.from !== opened.sender) return void this.drops.dropped('forged', 'a message on the channel');
    return { body, sender: opened.sender };
  }
}
