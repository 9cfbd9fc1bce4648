import type { ListedRecord, ReplicaRecord } from '../../store/replica-records.js';
import { anyRouteClosed, type AccessRules, type Caller } from '../access/route-access.js';

/**
 * What /health says of this replica and of the fleet it belongs to, and why it says `degraded`.
 * Pure: the facts come from the runtime, the audit log and the store (./fleet.ts reads them).
 */

/** One replica as /health lists it. */
export interface FleetReplica extends Omit<ReplicaRecord, 'holder' | 'lease_ms'> {
  /** How long ago it last wrote its record (0 for the replica answering). */
  seen_ms_ago: number;
  /** It has not written its record for longer than its lease: it may have died. */
  stale: boolean;
  /** The replica that answered. */
  self: boolean;
}

export interface FleetView {
  replicas: FleetReplica[];
  /** Why the fleet is degraded; empty when it is not. */
  reasons: string[];
}

/** What the store said of the other replicas: their records, or why they could not be read. */
export type StoreListing = { records: readonly ListedRecord[]; unreadable: number } | { problem: string };

/** The first characters of a config digest: enough to tell configs apart in a line or a table. */
export const shortDigest = (digest: string): string => digest.slice(0, 12);

/**
 * Who sees the fleet: the admin (serve.token), or anyone where nothing is protected at all (a
 * gateway without credentials has no admin to tell apart). A named client, a view's token, an
 * OAuth caller and a caller let in by serve.open_routes see this replica's health only.
 */
export function seesFleet(rules: AccessRules, caller: Caller): boolean {
  return caller.via === 'serve-token' || (caller.via === 'open' && !anyRouteClosed(rules));
}

/** Why this replica is degraded: an upstream down, an audit log that cannot be written, a store that does not answer. */
export function localProblems(facts: {
  upstreams: readonly { name: string; state: string }[];
  audit?: { ok: boolean } | undefined;
  store?: { url: string; state: string } | undefined;
}): string[] {
  const reasons = facts.upstreams.filter((u) => u.state !== 'ready' && u.state !== 'idle').map((u) => `upstream ${u.name} is ${u.state}`);
  if (facts.audit?.ok === false) reasons.push('the audit log cannot be written (calls go on, their lines wait)');
  if (facts.store && facts.store.state !== 'ready') reasons.push(`the store (${facts.store.url}) is ${facts.store.state}: limited calls are refused`);
  return reasons;
}

const seconds = (ms: number) => `${ms < 10_000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000)} s`;

/**
 * The fleet as the replica answering sees it: itself (always, as it is now) and the records of the
 * others; `degraded` when they serve different configs (live replicas only), when one has not been
 * heard from for longer than its lease, when two share a replica id, or when the store could not
 * list them all.
 */
export function judgeFleet(self: ReplicaRecord, listing: StoreListing | undefined): FleetView {
  const reasons: string[] = [];
  const replicas: FleetReplica[] = [view(self, 0, true)];
  if (listing && 'problem' in listing) reasons.push(`the other replicas cannot be listed: ${listing.problem}`);
  else if (listing) {
    for (const record of listing.records) if (record.holder !== self.holder) replicas.push(view(record, record.seen_ms_ago, false));
    if (listing.unreadable) reasons.push(`${listing.unreadable} record(s) in the store are not replica records mcpkit can read`);
    for (const record of listing.records) {
      if (record.holder !== self.holder && record.seen_ms_ago > record.lease_ms)
        reasons.push(
          `replica ${record.id} has not been heard from for ${seconds(record.seen_ms_ago)} (its lease is ${seconds(record.lease_ms)}): it may have died`,
        );
    }
  }
  replicas.sort((a, b) => (a.self === b.self ? a.id.localeCompare(b.id) : a.self ? -1 : 1));
  reasons.push(...differingConfigs(replicas.filter((r) => !r.stale)), ...sharedIds(replicas));
  return { replicas, reasons };
}

function view(record: ReplicaRecord, seenMsAgo: number, self: boolean): FleetReplica {
  const { holder: _holder, lease_ms, ...shown } = record;
  return { ...shown, seen_ms_ago: seenMsAgo, stale: !self && seenMsAgo > lease_ms, self };
}

/** "replicas serve different configs: r1, r3 serve 3f2a9c1b2d4e; r2 serves 9e8d7c6b5a4f", or nothing. */
function differingConfigs(live: readonly FleetReplica[]): string[] {
  const byDigest = new Map<string, string[]>();
  for (const r of live) byDigest.set(r.config.digest, [...(byDigest.get(r.config.digest) ?? []), r.id]);
  if (byDigest.size < 2) return [];
  const groups = [...byDigest].map(([digest, ids]) => `${ids.join(', ')} ${ids.length > 1 ? 'serve' : 'serves'} ${shortDigest(digest)}`);
  return [`the replicas serve different configs: ${groups.join('; ')} (a change reached some of them only: keep their config files in step)`];
}

/** Two replicas with one replica id: the balancer cannot send a 2025 session to the one that has it. */
function sharedIds(replicas: readonly FleetReplica[]): string[] {
  const seen = new Map<string, number>();
  for (const r of replicas) seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([id, n]) => `${n} replicas have the replica id ${id} (serve.replica_id): a balancer cannot tell them apart`);
}
