import type { Client, McpSubscription, ServerCapabilities, SubscriptionFilter } from '@modelcontextprotocol/client';
import type { Logger } from '../../core/logger.js';

/** How long to wait before listening again after the stream dropped. */
const RELISTEN_MS = 1000;

/** The filter for a server's capabilities and the resources subscribed to; undefined when there is nothing to hear. */
export function listenFilter(capabilities: ServerCapabilities | undefined, uris: ReadonlySet<string>): SubscriptionFilter | undefined {
  const filter: SubscriptionFilter = {};
  if (capabilities?.tools?.listChanged) filter.toolsListChanged = true;
  if (capabilities?.prompts?.listChanged) filter.promptsListChanged = true;
  if (capabilities?.resources?.listChanged) filter.resourcesListChanged = true;
  if (capabilities?.resources?.subscribe && uris.size) filter.resourceSubscriptions = [...uris].sort();
  return Object.keys(filter).length ? filter : undefined;
}

/**
 * What a 2026-07-28 server tells only to a client that listens (subscriptions/listen replaced the
 * unsolicited list_changed and resources/subscribe): one stream per connection, opened when it
 * connects and opened again with the new filter when the subscribed resources change, or after it
 * dropped. Its notifications reach the SDK client's handlers, the same ones a 2025 server's reach.
 */
export class ListenStream {
  private readonly uris = new Set<string>();
  private client?: Client;
  private current?: McpSubscription;
  private opening: Promise<void> = Promise.resolve();
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly name: string,
    private readonly logger: Logger,
  ) {}

  /** A (re)connected 2026 client: listen on it. */
  attach(client: Client): Promise<void> {
    this.client = client;
    return this.reopen();
  }

  /** Adds or removes a resource subscription; true when the server takes subscriptions. */
  async subscription(client: Client, uri: string, on: boolean): Promise<boolean> {
    if (!client.getServerCapabilities()?.resources?.subscribe) return false;
    const had = this.uris.has(uri);
    if (on) this.uris.add(uri);
    else this.uris.delete(uri);
    if (had !== on) await this.reopen();
    return true;
  }

  async close(): Promise<void> {
    this.client = undefined;
    clearTimeout(this.retry);
    await this.current?.close().catch(() => undefined);
    this.current = undefined;
  }

  private reopen(): Promise<void> {
    this.opening = this.opening.then(() => this.open());
    return this.opening;
  }

  private async open(): Promise<void> {
    const client = this.client;
    const previous = this.current;
    this.current = undefined;
    await previous?.close().catch(() => undefined);
    const filter = client && listenFilter(client.getServerCapabilities(), this.uris);
    if (!client || !filter) return;
    try {
      const subscription = await client.listen(filter);
      this.current = subscription;
      void subscription.closed.then((reason) => {
        if (reason !== 'remote' || this.current !== subscription || this.client !== client) return;
        this.retry = setTimeout(() => void this.reopen(), RELISTEN_MS);
        this.retry.unref();
      });
    } catch (error) {
      this.logger.warn(`${this.name}: subscriptions/listen failed: ${(error as Error).message}`);
    }
  }
}
