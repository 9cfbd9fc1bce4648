import type { Tool } from '@modelcontextprotocol/server';
import { servesAsApproved } from '../pins/lock-listing.js';
import type { CatalogEntry } from './catalog.js';
import { afterListing, type ToolSource } from './tool-sources.js';

/**
 * How a view's catalog changes between listings: the servers that missed one (their answer is
 * announced as a change, and listings do not wait for them meanwhile), and every name the view
 * published (a name gone since is told so, not "unknown"). Apart from ./view-catalog.ts, which
 * makes the listings: this part only remembers across them, and outlives a catalog on reload.
 */
export class CatalogChanges {
  /** Servers that missed a listing and have not answered since. */
  private readonly stragglers = new Set<ToolSource>();
  /** Every name a catalog of this view published, with where it came from. */
  private readonly published = new Map<string, string>();

  /** `late`: the catalog changed because a straggler answered (list_changed for the view's clients). */
  constructor(private readonly late: () => void) {}

  /** Whether any server is still straggling: a listing made now is not complete. */
  get straggling(): boolean {
    return this.stragglers.size > 0;
  }

  isStraggling(source: ToolSource): boolean {
    return this.stragglers.has(source);
  }

  /**
   * A server missed a listing: its answer is announced when it comes. `approved`: what the lock
   * answered for it; its live listing is announced only if what is served differs.
   */
  missed(source: ToolSource, approved?: readonly Tool[]): void {
    if (this.stragglers.has(source)) return;
    this.stragglers.add(source);
    afterListing(source, () => {
      this.stragglers.delete(source);
      if (!approved || !servesAsApproved(source.cachedTools(), approved)) this.late();
    });
  }

  /** Remembers the names a catalog publishes, with where each came from. */
  record(catalog: ReadonlyMap<string, CatalogEntry>): void {
    for (const [name, entry] of catalog) this.published.set(name, entry.kind === 'upstream' ? `server "${entry.server}"` : 'mcpkit');
  }

  /** Takes over the names an earlier catalog of the same view published (a reload re-made the hub's catalog). */
  inherit(earlier: CatalogChanges): void {
    for (const [name, from] of earlier.published) if (!this.published.has(name)) this.published.set(name, from);
  }

  /** Where a name published before came from, when `current` (the kept catalog, if any) no longer has it. */
  goneFrom(name: string, current: ReadonlyMap<string, CatalogEntry> | undefined): string | undefined {
    return current?.has(name) ? undefined : this.published.get(name);
  }
}
