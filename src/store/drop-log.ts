import type { Logger } from '../core/logger.js';
import type { DropReason } from './store-signing.js';

/** At most one line per reason in this long: a flood of forgeries does not flood stderr. */
const QUIET_MS = 60_000;

const WHY: Record<DropReason, string> = {
  unsigned: 'not signed by a replica',
  forged: 'its signature does not hold (another serve.store.key, or altered)',
  replayed: 'heard before (a replay)',
  stale: `signed too long ago or in the future (a replay, or a clock off by more than 30 s)`,
};

/**
 * Says on stderr what a replica dropped from the store (a message on its channel, a record),
 * rate-limited per reason: the first at once, then how many were dropped since, once a minute.
 */
export class DropLog {
  private readonly last = new Map<DropReason, { at: number; since: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  dropped(why: DropReason, what: string): void {
    const now = this.now();
    const last = this.last.get(why);
    if (last && now - last.at < QUIET_MS) {
      last.since++;
      return;
    }
    const more = last?.since ? ` (and ${last.since} more since the last said)` : '';
    this.last.set(why, { at: now, since: 0 });
    this.logger.warn(
      `serve.store: dropped ${what}: ${WHY[why]}${more}. Whoever can write to the store without serve.store.key cannot act through it; if a replica runs with another key, give all replicas the same one.`,
    );
  }
}
