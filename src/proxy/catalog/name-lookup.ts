import type { ToolError } from '../../core/errors.js';
import type { CatalogEntry } from './catalog.js';
import type { WithheldTool } from './listing-admission.js';
import { afterListing, type ToolSource } from './tool-sources.js';
import { viewPrefixes, type ResolvedView } from './view.js';

/**
 * One name of a view's catalog, looked up as a call needs it: found as soon as the server that has
 * it answers, without waiting for the others, and without starting servers the name is not of.
 * Apart from ./view-catalog.ts, which lists whole catalogs: a lookup starts at most the servers it
 * must, and only falls back to a whole listing when nothing narrower can answer.
 */

/** What a lookup reads of the view's catalog (./view-catalog.ts gives it). */
export interface LookupHost {
  readonly sources: ReadonlyMap<string, ToolSource>;
  /** How many servers the view has: the most a call's lookup lists one by one. */
  readonly serverCount: number;
  /** The complete catalog, if it is kept. */
  known(): ReadonlyMap<string, CatalogEntry> | undefined;
  /** The catalog from what the servers have listed so far, kept if every one has. */
  listedSoFar(): Map<string, CatalogEntry>;
  /** The same, not kept (it is made again after each server answers). */
  fromCache(): Map<string, CatalogEntry>;
  /** The whole catalog, listed live. */
  current(): Promise<Map<string, CatalogEntry>>;
  withheldTool(name: string): WithheldTool | undefined;
  /** The view's servers that are not down. */
  live(): ToolSource[];
}

export class NameLookup {
  constructor(private readonly host: LookupHost) {}

  /**
   * One entry, found as soon as the server that has it has answered: a slow or dead server of the
   * view does not hold up a call to another one. Unknown names wait for the whole catalog.
   */
  async entry(name: string): Promise<CatalogEntry | undefined> {
    const kept = this.host.known();
    if (kept) return kept.get(name);
    // A client that calls without listing first (many do) gets the hot path too, once every server has listed.
    const known = this.host.listedSoFar().get(name);
    if (known) return this.listedHere(known) ? known : this.entryForCall(name);
    const early = await new Promise<CatalogEntry | undefined>((resolve) => {
      const live = this.host.live();
      let pending = live.length;
      if (pending === 0) resolve(undefined);
      for (const source of live)
        afterListing(source, () => {
          const found = this.host.fromCache().get(name);
          const usable = found && this.listedHere(found) ? found : undefined;
          if (usable || --pending === 0) resolve(usable);
        });
    });
    return early ?? (await this.host.current()).get(name);
  }

  /**
   * The entry a call of `name` goes to, from listings this process made: a name found in an
   * earlier command's listing (a seed) starts and lists only the server it names, and counts
   * once that listing still has it. Anything else is looked up in the whole catalog, listed live.
   */
  async entryForCall(name: string): Promise<CatalogEntry | undefined> {
    for (let tries = 0; tries < this.host.serverCount; tries++) {
      const guess = this.host.fromCache().get(name);
      // A tool its pins withhold is looked up on its own server only: once a live listing still
      // withholds it, the caller is told so (withheldTool) and no other server is started.
      const held = guess ? undefined : this.host.withheldTool(name);
      if (held) {
        const source = this.host.sources.get(held.server)!;
        if (source.listedLive?.() === true && this.host.withheldTool(name)) return undefined;
        await source.listTools().catch(() => undefined);
        if (source.listedLive?.() !== true) break;
        continue;
      }
      if (guess?.kind !== 'upstream') break;
      if (this.listedHere(guess)) return guess;
      const source = this.host.sources.get(guess.server)!;
      await source.listTools().catch(() => undefined);
      if (source.listedLive?.() !== true) break;
    }
    return (await this.host.current()).get(name);
  }

  /** An upstream entry counts for a call only from a listing this process made (not from a seed). */
  private listedHere(entry: CatalogEntry): boolean {
    return entry.kind !== 'upstream' || this.host.sources.get(entry.server)?.listedLive?.() !== false;
  }
}

/**
 * Why a name the view does not serve would be a tool of a server refused to this caller (a
 * per_client server it has no credentials for), if it would: said so, never "unknown".
 */
export function refusedServerOf(
  name: string,
  view: Pick<ResolvedView, 'separator' | 'prefixed' | 'servers'>,
  sources: ReadonlyMap<string, ToolSource>,
): ToolError | undefined {
  const separator = view.separator === undefined ? '__' : view.separator;
  const prefixed = viewPrefixes(view) && separator !== null;
  for (const [server, source] of sources) {
    // Unprefixed, a name could be any server's: said when the view has that one server only.
    const mine = prefixed ? name.startsWith(`${server}${separator}`) : sources.size === 1;
    const refused = mine ? source.refusal?.() : undefined;
    if (refused) return refused;
  }
  return undefined;
}
