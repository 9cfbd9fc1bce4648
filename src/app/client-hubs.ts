import { SETTING_DEFAULTS } from '../config/schema/defaults.js';
import type { CallerIdentity } from '../config/schema/client-credentials.js';
import type { McpkitConfig } from '../config/schema/schema.js';
import type { Logger } from '../core/logger.js';
import type { ClientEra } from '../proxy/eras/era.js';
import type { ProxyHub } from '../proxy/hub.js';
import type { DownstreamRelay } from '../proxy/upstream/upstream.js';
import { OwnHubs } from './own-hubs.js';
import type { OpenHubOptions } from './runtime-options.js';

/** What choosing a client's hub needs of the runtime. */
export interface ClientHubsDeps {
  openHub(view: string | undefined, options: OpenHubOptions): Promise<ProxyHub>;
  config(): Promise<McpkitConfig>;
  /** The config as served now (serve.clients, serve.max_client_hubs). */
  loaded(): McpkitConfig | undefined;
  logger(): Logger;
  /** serve --http: per_client servers are reached with a client's own credentials only. */
  perClient(): boolean;
}

/**
 * The hub each client of a view served by `serve` is answered from. The view's shared one, unless
 * the client needs connections of its own: it brings a relay (it declared sampling, elicitation or
 * roots: one hub per connection), or, over HTTP, its own credentials for one of the view's servers,
 * or one is per_client (one hub per named client, view and era, shared by its sessions and requests).
 * Own hubs' connections are a cache (./own-hubs.ts): at most serve.max_client_hubs are awake at
 * once, the least recently used idle ones sleep.
 */
export class ClientHubs {
  private ownHubs?: OwnHubs;
  private readonly identityHubs = new Map<string, Promise<ProxyHub>>();

  constructor(private readonly deps: ClientHubsDeps) {}

  async hubOf(view: string | undefined, downstream: DownstreamRelay | undefined, caller: { client?: string; era?: ClientEra }): Promise<ProxyHub> {
    const era = caller.era ?? 'legacy';
    const client = await this.ownIdentity(view, caller.client);
    if (!downstream && client === undefined) return this.deps.openHub(view, { shared: true, era });
    if (!downstream) return this.identityHub(view, era, client!);
    return this.ownHub(view, { downstream, era, ...(client !== undefined ? { client } : {}) });
  }

  /** Closes the clients' own hubs (serve's end): the servers their own credentials started end too. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.identityHubs.values()]);
    await this.ownHubs?.closeAll();
  }

  /** A named client's identity under the config as it is now (its credentials follow reloads). */
  identityOf(client: string | undefined): CallerIdentity | undefined {
    if (client === undefined) return undefined;
    const spec = this.deps.loaded()?.serve.clients?.[client];
    return spec ? { client, credentials: spec.credentials ?? {} } : undefined;
  }

  /** A hub of connections of its own, among the clients' own hubs that OwnHubs keeps under serve.max_client_hubs awake. */
  private async ownHub(view: string | undefined, options: Pick<OpenHubOptions, 'downstream' | 'era' | 'client' | 'onClose'>): Promise<ProxyHub> {
    const own = (this.ownHubs ??= new OwnHubs(() => this.deps.loaded()?.serve.max_client_hubs ?? SETTING_DEFAULTS.serve.max_client_hubs, this.deps.logger()));
    let made: ProxyHub | undefined;
    const hub = await this.deps.openHub(view, {
      ...options,
      woke: () => void (made && own.woke(made)),
      onClose: () => {
        if (made) own.delete(made);
        options.onClose?.();
      },
    });
    own.add((made = hub));
    return hub;
  }

  /**
   * The named client whose own credentials a view's connections need (it has some for one of the
   * view's servers, or one is per_client); undefined: the shared connections serve it.
   */
  private async ownIdentity(view: string | undefined, client: string | undefined): Promise<string | undefined> {
    if (client === undefined || !this.deps.perClient()) return undefined;
    const [config, { viewServers }, { needsOwnConnections }] = await Promise.all([
      this.deps.config(),
      import('../proxy/catalog/view.js'),
      import('../config/schema/client-credentials.js'),
    ]);
    return needsOwnConnections(viewServers(config, view) ?? [], this.identityOf(client)) ? client : undefined;
  }

  /** One client's own hub of a view and era, shared by its sessions and requests; made on first use. */
  private identityHub(view: string | undefined, era: ClientEra, client: string): Promise<ProxyHub> {
    const key = `${era}\0${view ?? ''}\0${client}`;
    let hub = this.identityHubs.get(key);
    if (!hub) {
      hub = this.ownHub(view, { era, client, onClose: () => this.identityHubs.delete(key) });
      this.identityHubs.set(key, hub);
      hub.catch(() => this.identityHubs.delete(key));
    }
    return hub;
  }
}
