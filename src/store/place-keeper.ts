import type { Logger } from '../core/logger.js';
import { ADMIT, RENEW } from './limit-scripts.js';
import { settleMs, storeRun, type Commands } from './store-client.js';

/**
 * The places in flight one replica holds in serve.store, and its lease, kept through the store's
 * losses: renewed every third of the lease, put back when the store returns having lost them (a
 * restart without persistence), and, after such a restart, limited calls held back until every
 * replica has had time to put back its own, so `max_concurrent` holds across it. The store's loss
 * and its return are each said once on stderr.
 */
export class PlaceKeeper {
  /** Places in flight this replica holds, renewed until released: key -> holders. */
  private readonly held = new Map<string, Set<string>>();
  private readonly renewer: NodeJS.Timeout;
  /** Whether the store answered last we heard. */
  private up = false;
  /** Which run of the store this replica last reached: another one lost what the store kept. */
  private runId?: string;
  /** While the store's return is being settled: limited calls wait for it. */
  settling?: Promise<void>;
  /** Opening (the outcome of open says it) or closing: nothing to say of the connection. */
  quiet = true;

  constructor(
    private readonly redis: Commands,
    private readonly url: string,
    private readonly lease: { key: string; ms: number },
    private readonly logger: Logger,
  ) {
    this.renewer = setInterval(() => void this.renew(), Math.max(10, Math.floor(lease.ms / 3)));
    this.renewer.unref();
  }

  hold(key: string, holder: string): void {
    let holders = this.held.get(key);
    if (!holders) this.held.set(key, (holders = new Set()));
    holders.add(holder);
  }

  /** Gives a place back (a release that fails is given back by the lease instead). */
  release(key: string, holder: string): void {
    this.held.get(key)?.delete(holder);
    this.redis.zrem(key, holder).catch(() => undefined);
  }

  stop(): void {
    this.quiet = true;
    clearInterval(this.renewer);
  }

  wentDown(reason: string): void {
    if (this.quiet || !this.up) return;
    this.up = false;
    this.logger.warn(`serve.store (${this.url}) is lost (${reason}): limited calls are refused until it answers again`);
  }

  /** The store answers (at first, or again after `wasLost`). */
  cameBack(wasLost: boolean): void {
    this.up = true;
    this.settling = this.settle(wasLost).finally(() => (this.settling = undefined));
  }

  /** Renews this replica's lease and every place its calls hold, putting back any the store lost: how many places. */
  private async renew(): Promise<number> {
    await this.redis.set(this.lease.key, '1', 'PX', this.lease.ms).catch(() => undefined);
    let places = 0;
    for (const [key, holders] of this.held) {
      if (!holders.size) {
        this.held.delete(key);
        continue;
      }
      for (const holder of holders)
        if (
          await this.redis.mcpkitRenew(key, holder, this.lease.ms).then(
            () => true,
            () => false,
          )
        )
          places++;
    }
    return places;
  }

  private async settle(wasLost: boolean): Promise<void> {
    const run = storeRun(await this.redis.info('server').catch(() => ''));
    const restarted = this.runId !== undefined && run?.runId !== this.runId;
    if (run) this.runId = run.runId;
    // A store that restarted has no scripts: loaded first, a renewal is never sent again (as EVAL
    // after NOSCRIPT) behind a release of the same place.
    await Promise.all([ADMIT, RENEW].map((lua) => this.redis.script('LOAD', lua))).catch(() => undefined);
    const places = await this.renew();
    if (!wasLost) return;
    // Said at the level its loss was, so that whoever reads one reads the other.
    if (!restarted) return this.logger.warn(`serve.store (${this.url}) answers again`);
    const pause = settleMs(run?.uptimeMs ?? 0);
    this.logger.warn(
      `serve.store (${this.url}) answers again; it restarted and kept nothing: this replica put back the ${places} places its calls hold, and holds limited calls ${pause} ms for the other replicas to do the same (rate buckets start full)`,
    );
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
