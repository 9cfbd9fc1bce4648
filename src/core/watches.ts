import type { FSWatcher } from 'node:fs';

/**
 * Makes a set of folder watches follow the folders wanted now: the watches of folders no longer
 * wanted are closed and dropped, and the wanted folders that have no watch yet are returned, in
 * the order given, for the caller to watch (at once, or in slices between requests). The one
 * reconciliation of both watchers, the config's folder (config/config-watcher.ts) and a searched
 * tree's folders (retrieve/folder-watcher.ts).
 */
export function reconcileWatches(handles: Map<string, FSWatcher>, wanted: Iterable<string>): string[] {
  const want = new Set(wanted);
  for (const [folder, handle] of handles) {
    if (want.has(folder)) continue;
    handle.close();
    handles.delete(folder);
  }
  return [...want].filter((folder) => !handles.has(folder));
}
