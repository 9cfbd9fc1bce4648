import { sanitizeName } from './names.js';
import type { ToolSource } from './tool-sources.js';
import { viewPrefixes, type ResolvedView } from './view.js';

/**
 * Which servers a listing, or a lookup of a name the catalog lacks, starts a new reconnect round
 * of: a server whose attempts ran out (before it ever listed, or since) has no tools in the
 * catalog, so nothing else would ever reach it again (ToolSource.revive keeps to one round at a time, a cool-down
 * apart). Apart from ./view-catalog.ts, which waits for their listings: this part only chooses.
 */

/** Starts a new round of each source that is due one; returns those started (each now connecting). */
export function reviveDue(sources: Iterable<ToolSource>): ToolSource[] {
  const revived: ToolSource[] = [];
  for (const source of sources) if (source.revive?.() === true) revived.push(source);
  return revived;
}

/**
 * The servers of the view a tool name could be published by: the one whose prefix it has, or, in
 * a view that does not prefix, every one. Pure.
 */
export function serversOfName(name: string, view: Pick<ResolvedView, 'separator' | 'prefixed' | 'servers'>): string[] {
  const separator = view.separator === undefined ? '__' : view.separator;
  const names = view.servers.map((s) => s.name);
  if (!viewPrefixes(view) || separator === null) return names;
  // Published names are sanitized (./names.ts): so is the prefix they start with.
  return names.filter((server) => name.startsWith(sanitizeName(`${server}${separator}`)));
}
