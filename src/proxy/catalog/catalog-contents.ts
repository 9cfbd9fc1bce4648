import type { CatalogEntry } from './catalog.js';

/** The kinds of tools in a catalog, for the meta-tools' description: mcpkit's groups, then each server. */
export function catalogContents(
  catalog: ReadonlyMap<string, CatalogEntry>,
  summaries: ReadonlyMap<string, string>,
  describe: (server: string) => string | undefined,
): string[] {
  const groups = new Map<string, number>();
  const servers = new Map<string, number>();
  for (const entry of catalog.values()) {
    const counts = entry.kind === 'upstream' ? servers : groups;
    const key = entry.kind === 'upstream' ? entry.server : entry.kind === 'local' ? entry.tool.group : 'composite';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const out: string[] = [];
  if (groups.size) out.push(`mcpkit's own ${[...groups].map(([g, n]) => `${g} (${n}${summaries.get(g) ? `: ${summaries.get(g)}` : ''})`).join(', ')}`);
  for (const [name, n] of servers) {
    const about = describe(name);
    out.push(`server "${name}" (${n} tools${about ? `: ${about}` : ''})`);
  }
  return out;
}
