import type { Logger } from '../core/logger.js';
import type { ProxyHub } from '../proxy/hub.js';

/**
 * Clients' own hubs under serve (a client that declares sampling, elicitation or roots gets
 * upstream connections of its own, so that what a server asks reaches it alone). Their server
 * processes are a cache, not a reservation: at most `cap()` hubs are awake (connected) at once;
 * when one more wakes, the least recently used awake hub with no call in flight is put to sleep
 * (its connections closed, to be opened again on its client's next request). Every client keeps
 * its own hub, so every active client is relayed; only when every awake hub has a call in flight
 * does the count pass the cap, until those calls end.
 */
export class OwnHubs {
  private readonly hubs = new Set<ProxyHub>();
  private overSaid = false;

  constructor(
    private readonly cap: () => number,
    private readonly logger: Logger,
  ) {}

  add(hub: ProxyHub): void {
    this.hubs.add(hub);
  }

  delete(hub: ProxyHub): void {
    this.hubs.delete(hub);
  }

  /** Closes every hub (serve's end): their connections' server processes end with them. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.hubs].map((hub) => hub.close()));
  }

  /** How many hubs are awake now (any connection made or being made). */
  awake(): number {
    return [...this.hubs].filter(isAwake).length;
  }

  /** A hub's connection was made: over the cap, the least recently used idle hubs (never this one) are put to sleep. */
  async woke(hub: ProxyHub): Promise<void> {
    const cap = this.cap();
    let awake = [...this.hubs].filter(isAwake);
    while (awake.length > cap) {
      const asleep = awake.filter((h) => h !== hub && !activity(h).busy).sort((a, b) => activity(a).lastUsed - activity(b).lastUsed)[0];
      if (!asleep) {
        if (!this.overSaid)
          this.logger.warn(
            `${awake.length} clients' own connections are busy at once, past serve.max_client_hubs (${cap}); the idle ones will sleep when their calls end`,
          );
        this.overSaid = true;
        return;
      }
      await Promise.allSettled(asleep.upstreamList().map((u) => u.sleep()));
      awake = awake.filter((h) => h !== asleep);
    }
    this.overSaid = false;
  }
}

function isAwake(hub: ProxyHub): boolean {
  return hub.upstreamList().some((u) => u.activity().awake);
}

/** A hub's calls in flight, and when its last call began. */
function activity(hub: ProxyHub): { busy: boolean; lastUsed: number } {
  const all = hub.upstreamList().map((u) => u.activity());
  return { busy: all.some((a) => a.busy), lastUsed: Math.max(0, ...all.map((a) => a.lastUsed)) };
}
