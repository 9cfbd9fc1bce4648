import { hostname } from 'node:os';
import type { Runtime } from '../../app/runtime.js';
import { configDigest } from '../../config/config-digest.js';
import { ReplicaRecords, type ReplicaRecord } from '../../store/replica-records.js';
import type { SharedStore } from '../../store/shared-store.js';
import { judgeFleet, type FleetView } from './health-view.js';

/**
 * This replica of `serve --http` among the others (the admin's /health): with a store, its record
 * is kept there (store/replica-records.ts), written again at once after each applied reload so that
 * a config that reached one replica only shows as soon as it does; without one, the fleet is this
 * replica alone.
 */
export interface Fleet {
  view(): Promise<FleetView>;
  close(): Promise<void>;
}

export interface FleetOptions {
  runtime: Runtime;
  store?: SharedStore | undefined;
  /** serve.replica_id, when set. */
  replicaId?: string | undefined;
  /** The tools/call requests in flight now (mcp/pipeline/calls-in-flight.ts). */
  inFlight: () => number;
}

export function startFleet(options: FleetOptions): Fleet {
  const self = selfOf(options);
  if (!options.store) {
    const alone = () => ({ ...self(), holder: 'self', heartbeat_at: new Date().toISOString(), lease_ms: 0 });
    return { view: async () => judgeFleet(alone(), undefined), close: async () => {} };
  }
  const records = new ReplicaRecords(options.store.recordKeeping(), self);
  const off = options.runtime.configs.live.reloaded.on((report) => {
    if (report.outcome === 'applied') void records.beat();
  });
  return {
    async view() {
      const listing = await records.list().catch((error: Error) => ({ problem: `the store (${options.store!.url}) does not answer (${error.message})` }));
      return judgeFleet(records.record(), listing);
    },
    async close() {
      off();
      await records.close();
    },
  };
}

/** This replica as it is now: read at every heartbeat and every /health of the admin's. */
function selfOf({ runtime, replicaId, inFlight }: FleetOptions): () => Omit<ReplicaRecord, 'holder' | 'heartbeat_at' | 'lease_ms'> {
  const startedAt = new Date().toISOString();
  // Without serve.replica_id, where it runs: a container's host name is its pod's.
  const id = replicaId ?? `${hostname()}:${process.pid}`.slice(-64);
  let digested: { text: string | undefined; digest: string } | undefined;
  const digest = () => {
    const live = runtime.configs.live;
    const text = live.servedText ?? live.loadedText;
    if (digested?.text !== text || digested === undefined) digested = { text, digest: configDigest(text) };
    return digested.digest;
  };
  return () => ({
    id,
    version: runtime.version(),
    started_at: startedAt,
    config: { digest: digest(), generation: runtime.configs.status().generation },
    in_flight: inFlight(),
  });
}
