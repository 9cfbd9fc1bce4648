import type { Client, LoggingMessageNotification, RequestId } from '@modelcontextprotocol/client';
import { Listeners, type Subscribable } from '../../core/listeners.js';

type LogParams = LoggingMessageNotification['params'];

/**
 * What a server tells, as those who listen see it: one server's (`Upstream.events`), or a view's
 * servers' together (`ProxyHub.events`: the view's own tool list, logs and updates of all its
 * servers, each client keeping to its level and subscriptions). Each `on` returns a function that
 * unsubscribes (an HTTP session that ends must stop listening).
 */
export interface ServerNotices {
  /** The tool list changed: list_changed from the server, a reconnect, or (a view's) a reload. */
  readonly toolsChanged: Subscribable;
  readonly promptsChanged: Subscribable;
  readonly resourcesChanged: Subscribable;
  /** Log messages (notifications/message), with the downstream call in flight they are about. */
  readonly logs: Subscribable<[LogParams, RequestId | undefined]>;
  /** notifications/resources/updated for a URI the server was subscribed to. */
  readonly updates: Subscribable<[string]>;
}

/**
 * What an upstream server tells its client, passed on to whoever listens (a view's hub): its
 * lists changed, a log line, a subscribed resource updated; and which downstream calls to it are
 * in flight, oldest first, so that a log line or a question it sends goes to the call it is about.
 */
export class UpstreamEvents implements ServerNotices {
  readonly toolsChanged = new Listeners();
  readonly promptsChanged = new Listeners();
  readonly resourcesChanged = new Listeners();
  readonly logs = new Listeners<[LogParams, RequestId | undefined]>();
  readonly updates = new Listeners<[string]>();
  private readonly related: RequestId[] = [];

  /** Marks a downstream call as in flight until the returned function is called. */
  relate(id: RequestId | undefined): () => void {
    if (id === undefined) return () => {};
    this.related.push(id);
    return () => {
      const at = this.related.indexOf(id);
      if (at >= 0) this.related.splice(at, 1);
    };
  }

  /** The oldest downstream call in flight, what the server's words are related to. */
  oldest(): RequestId | undefined {
    return this.related[0];
  }

  /** A new SDK client's notifications, passed on (the tools' list change is the upstream's own: it lists them again first). */
  hear(client: Client): void {
    client.setNotificationHandler('notifications/message', async (n) => this.logs.emit(n.params, this.oldest()));
    client.setNotificationHandler('notifications/resources/updated', async (n) => this.updates.emit(n.params.uri));
    // Prompt and resource lists are read through, so a change only needs passing on.
    client.setNotificationHandler('notifications/prompts/list_changed', async () => this.promptsChanged.emit());
    client.setNotificationHandler('notifications/resources/list_changed', async () => this.resourcesChanged.emit());
  }
}
