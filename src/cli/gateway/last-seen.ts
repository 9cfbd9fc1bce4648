import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { McpkitConfig } from '../../config/schema/schema.js';

/** Where `mcpkit clients` learnt when each client was last seen. */
export type SeenSource = 'store' | 'audit log' | 'unknown';

/**
 * When each named client was last seen: from serve.store when the config has one (every replica
 * writes there, store/last-seen.ts), else from the audit log when serve writes one (its newest call
 * of each), else unknown. A store that does not answer falls back to the audit log.
 */
export async function lastSeen(
  serve: McpkitConfig['serve'],
  configPath: string,
  names: readonly string[],
): Promise<{ source: SeenSource; times: Record<string, string> }> {
  const store = serve.store;
  if (store && !store.url.includes('${')) {
    const { readLastSeen } = await import('../../store/last-seen.js');
    const times = await readLastSeen({ url: store.url, prefix: store.prefix }, names);
    if (times) return { source: 'store', times };
  }
  const log = serve.audit_log;
  if (log && !log.includes('${')) {
    const path = resolve(dirname(configPath), log);
    if (existsSync(path))
      return {
        source: 'audit log',
        times: newestCalls(
          [`${path}.1`, path].filter((f) => existsSync(f)),
          new Set(names),
        ),
      };
  }
  return { source: 'unknown', times: {} };
}

/** The newest call of each named client in these audit files (the live one and the last rotated). */
function newestCalls(files: readonly string[], names: ReadonlySet<string>): Record<string, string> {
  const times: Record<string, string> = {};
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      let entry: { time?: unknown; client?: unknown };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      if (typeof entry.client !== 'string' || !names.has(entry.client) || typeof entry.time !== 'string') continue;
      const at = Date.parse(entry.time);
      if (Number.isNaN(at)) continue;
      const known = times[entry.client];
      if (known === undefined || Date.parse(known) < at) times[entry.client] = new Date(at).toISOString();
    }
  }
  return times;
}
