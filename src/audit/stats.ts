import type { AuditEntry } from './audit-log.js';

/** `mcpkit stats`: calls, errors and durations per tool and per client, from audit log lines. Pure. */

export interface StatsRow {
  /** The tool (as published, with its server) or the client. */
  key: string;
  calls: number;
  errors: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
}

export interface Stats {
  since: string | null;
  calls: number;
  errors: number;
  /** Lines that are not audit entries (a torn last line, another file). */
  skipped: number;
  by_tool: StatsRow[];
  /** By who called: a configured client's name, else how it was let in (audit lines before serve.clients: "(not recorded)"). */
  by_client: StatsRow[];
  /** By the MCP client software it said it is (clientInfo name and version). */
  by_agent: StatsRow[];
}

/** The groupings `mcpkit stats --by` shows. */
export const STATS_GROUPS = ['tool', 'client', 'agent'] as const;

/** The entries of audit log text; lines that do not parse are counted, not fatal. */
export function parseAuditLines(text: string): { entries: AuditEntry[]; skipped: number } {
  const entries: AuditEntry[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const entry = JSON.parse(line) as AuditEntry;
      if (typeof entry.time !== 'string' || typeof entry.duration_ms !== 'number' || typeof entry.outcome !== 'string') skipped++;
      else entries.push(entry);
    } catch {
      skipped++;
    }
  }
  return { entries, skipped };
}

/** "90s", "15m", "1h", "2d" as milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/** The value at rank p (0-100) of sorted numbers, nearest-rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

function rows(entries: readonly AuditEntry[], keyOf: (e: AuditEntry) => string): StatsRow[] {
  const groups = new Map<string, AuditEntry[]>();
  for (const e of entries) {
    const key = keyOf(e);
    const group = groups.get(key);
    if (group) group.push(e);
    else groups.set(key, [e]);
  }
  return [...groups]
    .map(([key, group]) => {
      const durations = group.map((e) => e.duration_ms).sort((a, b) => a - b);
      return {
        key,
        calls: group.length,
        errors: group.filter((e) => e.outcome !== 'ok').length,
        p50_ms: round(percentile(durations, 50)),
        p95_ms: round(percentile(durations, 95)),
        max_ms: round(durations.at(-1) ?? 0),
      };
    })
    .sort((a, b) => b.calls - a.calls || (a.key < b.key ? -1 : 1));
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * The row a call counts under: an upstream tool by its own name and server ("echo (everything)"),
 * so the same tool published as `everything__echo` in one view and `echo` in another is one row.
 */
function toolKey(e: AuditEntry): string {
  const method = e.method === 'tools/call' ? '' : `${e.method} `;
  if (!e.server || e.server === 'mcpkit') return `${method}${e.name}`;
  return `${method}${e.upstream_name ?? e.name} (${e.server})`;
}

export function summarize(entries: readonly AuditEntry[], options: { sinceMs?: number; now: number; skipped?: number }): Stats {
  const from = options.sinceMs !== undefined ? options.now - options.sinceMs : undefined;
  const kept = from === undefined ? entries : entries.filter((e) => Date.parse(e.time) >= from);
  return {
    since: from === undefined ? null : new Date(from).toISOString(),
    calls: kept.length,
    errors: kept.filter((e) => e.outcome !== 'ok').length,
    skipped: options.skipped ?? 0,
    by_tool: rows(kept, toolKey),
    by_client: rows(kept, (e) => (typeof e.client === 'string' ? e.client : '(not recorded)')),
    by_agent: rows(kept, (e) => {
      // Lines written before serve.clients had the client software under "client".
      const info = e.client_info ?? (typeof e.client === 'object' ? (e.client as AuditEntry['client_info']) : null);
      return info ? `${info.name} ${info.version}` : 'unknown client';
    }),
  };
}
