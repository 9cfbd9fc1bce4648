import type { ToolError } from '../../core/errors.js';
import { settleListings, type ToolSource } from './tool-sources.js';
import type { Tool } from '@modelcontextprotocol/server';
import type { Logger } from '../../core/logger.js';
import { closestNames } from '../../core/suggest.js';
import type { ExposureSummary } from '../../tool/view-opener.js';
import { publish, type CatalogEntry } from './catalog.js';
import type { ExposurePlan } from './exposure.js';
import type { SearchAnswer } from './search-index.js';
import type { ResolvedView } from './view.js';
import type { PinDifference } from '../pins/pins.js';
import { lockAnswered } from './lock-answered.js';
import { CatalogOffer } from './catalog-offer.js';
import { ListingAdmission, type PinGate, type WithheldTool } from './listing-admission.js';
import { CatalogChanges } from './catalog-changes.js';
import { NameLookup, refusedServerOf } from './name-lookup.js';
import { reviveDue, serversOfName } from './revival.js';

export { settleListings, type ToolSource } from './tool-sources.js';
export type { PinGate, WithheldTool } from './listing-admission.js';
export { publish } from './catalog.js';

export interface ViewCatalogOptions {
  view: ResolvedView;
  /** The view's servers by name. */
  sources: ReadonlyMap<string, ToolSource>;
  logger: Logger;
  /** What each of mcpkit's groups is for (ToolGroup.summary): the meta-tools name them, and search ranks on them. */
  groupSummaries: ReadonlyMap<string, string>;
  /** How long a listing waits for upstreams that are still starting. */
  listWaitMs?: number;
  /** A listing was cut short and the late servers have now answered: the catalog changed. */
  late(): void;
  /** Tool pinning; absent: every listed tool is served. */
  pins?: PinGate;
  /** A tool served though it differs from its pins (pinning: warn), for the view's clients to hear; once per tool and definition. */
  differs?(server: string, tool: string, why: PinDifference): void;
}

/**
 * A view's catalog: mcpkit's own tools, the shaped tools of its servers and its composites, under
 * the names the view publishes; what tools/list shows of it (exposure), and the index the search
 * meta-tool ranks with. A complete listing is kept until `invalidate` (a server's list_changed);
 * one cut short by a slow server is not, so the next listing asks again. This class decides when
 * to list and what to keep; its parts do the rest: what a listing admits under the pins
 * (./listing-admission.ts), one name looked up for a call (./name-lookup.ts), what changes between
 * listings (./catalog-changes.ts: late servers, names gone), and what clients are offered of the
 * catalog (./catalog-offer.ts: exposure, search).
 */
export class ViewCatalog {
  private catalog?: Map<string, CatalogEntry>;
  /** The tools pins withhold, by the name the view would publish (a call by that name is told why). */
  private withheld = new Map<string, WithheldTool>();
  private readonly admission: ListingAdmission;
  private readonly offer: CatalogOffer;
  private readonly changes: CatalogChanges;
  private readonly lookup: NameLookup;

  constructor(private readonly options: ViewCatalogOptions) {
    this.admission = new ListingAdmission(options);
    this.offer = new CatalogOffer(options.view, options.logger, options.groupSummaries);
    this.changes = new CatalogChanges(() => options.late());
    this.lookup = new NameLookup({
      sources: options.sources,
      serverCount: options.view.servers.length,
      known: () => this.catalog,
      listedSoFar: () => {
        const cached = this.fromCache();
        if (this.complete()) this.keep(cached);
        return cached;
      },
      fromCache: () => this.fromCache(),
      current: () => this.current(),
      withheldTool: (name) => this.withheldTool(name),
      live: () => this.live(),
    });
  }

  /** Every tool pins withhold now, by the name the view would publish. */
  withheldTools(): (WithheldTool & { name: string })[] {
    return [...this.withheld].map(([name, held]) => ({ name, ...held }));
  }

  /** Why a name the view does not serve would be a tool of a server refused to this caller, if it would (./name-lookup.ts). */
  refusedTool(name: string): ToolError | undefined {
    return refusedServerOf(name, this.view, this.options.sources);
  }

  /** Why a name the view does not serve is withheld by tool pinning, if it is. */
  withheldTool(name: string): WithheldTool | undefined {
    return this.withheld.get(name);
  }

  private get view(): ResolvedView {
    return this.options.view;
  }

  /** What the meta-tools are named after: the view, or "mcpkit" for the default one. */
  get label(): string {
    return this.view.name ?? 'mcpkit';
  }

  /** Between a server's name and its tools' in published names (undefined: `__`; null: none). */
  get separator(): string | null | undefined {
    return this.view.separator;
  }

  /** The complete catalog, if it is known now (the hot path needs it without waiting). */
  get known(): ReadonlyMap<string, CatalogEntry> | undefined {
    return this.catalog;
  }

  invalidate(): void {
    this.catalog = undefined;
    this.offer.forget();
  }

  async current(): Promise<Map<string, CatalogEntry>> {
    // A server whose reconnect attempts ran out is tried again by a listing (./revival.ts): the
    // kept catalog lacks it, and this listing waits for it as for any server starting.
    if (reviveDue(this.options.sources.values()).length) this.invalidate();
    if (this.catalog) return this.catalog;
    const wait = this.options.listWaitMs ?? 15_000;
    // A server that is down keeps its last known tools listed; their calls fail fast with UNAVAILABLE.
    // One that missed an earlier listing is not waited for again: it is announced when it answers.
    // Under enforced pins serve answers from the lock for a server still starting; its live listing follows.
    for (const [source, approved] of lockAnswered(this.view, this.options.sources, (server) => this.options.pins?.approved?.(server)))
      this.changes.missed(source, approved);
    const awaited = this.live().filter((s) => !this.changes.isStraggling(s));
    const late = await settleListings(awaited, wait);
    if (late.length) {
      this.options.logger.warn(
        `tools/list: ${late.length} upstream server(s) not ready after ${wait} ms or the grace for stragglers; their tools follow with list_changed`,
      );
      for (const source of late) this.changes.missed(source);
    }
    const catalog = this.fromCache();
    // Only a complete listing is kept (the hot path runs on it); one without a straggler is made again.
    if (!late.length && !this.changes.straggling) this.keep(catalog);
    else this.changes.record(catalog);
    return catalog;
  }

  /** A catalog made of every server's live listing (none down waits, none straggles): kept until a change invalidates it. */
  private keep(catalog: Map<string, CatalogEntry>): void {
    this.catalog = catalog;
    this.changes.record(catalog);
  }

  /** Whether every server of the view has listed its tools in this process (or is down, its last tools kept), none straggling. */
  private complete(): boolean {
    if (this.changes.straggling) return false;
    for (const source of this.options.sources.values()) if (source.status().state !== 'down' && source.listedLive?.() !== true) return false;
    return true;
  }

  /** Takes over the names an earlier catalog of the same view published (a reload re-made the hub's catalog). */
  inherit(earlier: ViewCatalog): void {
    this.changes.inherit(earlier.changes);
  }

  /** Where a name this view published before came from, when the current catalog no longer has it. */
  goneTool(name: string): string | undefined {
    return this.changes.goneFrom(name, this.catalog);
  }

  /** One entry, found as soon as the server that has it has answered (./name-lookup.ts). */
  async entry(name: string): Promise<CatalogEntry | undefined> {
    return (await this.lookup.entry(name)) ?? (await this.revived(name, () => this.lookup.entry(name)));
  }

  /** The entry a call of `name` goes to, starting only the server an earlier listing names (./name-lookup.ts). */
  async entryForCall(name: string): Promise<CatalogEntry | undefined> {
    return (await this.lookup.entryForCall(name)) ?? (await this.revived(name, () => this.lookup.entryForCall(name)));
  }

  /**
   * A name the catalog lacks may be a tool of a server whose reconnect attempts ran out before it
   * listed: that server starts a new round (./revival.ts), and the name is looked up again once
   * its first attempt has listed or failed. Undefined when no server of the name was due one.
   */
  private async revived(name: string, lookUp: () => Promise<CatalogEntry | undefined>): Promise<CatalogEntry | undefined> {
    const named = serversOfName(name, this.view).flatMap((server) => this.options.sources.get(server) ?? []);
    const revived = reviveDue(named);
    if (!revived.length) return undefined;
    this.invalidate();
    await Promise.all(revived.map((source) => source.listTools().catch(() => undefined)));
    return lookUp();
  }

  async names(): Promise<string[]> {
    return [...(await this.current()).keys()];
  }

  /** The full catalog as MCP tools, whatever the exposure. */
  async tools(): Promise<Tool[]> {
    return [...(await this.current()).values()].map(publish);
  }

  /** How tools/list is made from the current catalog (./catalog-offer.ts). */
  async exposure(): Promise<ExposurePlan> {
    const catalog = await this.current();
    return this.offer.exposure(catalog, this.catalog === catalog);
  }

  /** The exposure plan in the words `view tools` shows. */
  async summary(): Promise<ExposureSummary> {
    const plan = await this.exposure();
    const names = plan.unknownPins.length ? await this.names() : [];
    return {
      mode: plan.mode,
      budget: this.view.tokenBudget,
      catalog_tokens: plan.catalogTokens,
      list_tokens: plan.listTokens,
      direct: plan.direct,
      unknown_pins: plan.unknownPins.map((pin) => ({ pin, similar: closestNames(pin, names) })),
    };
  }

  /** The search meta-tool: catalog tools ranked for a task's words; `keep`: the names a client may call (./catalog-offer.ts). */
  async search(query: string, limit: number, keep?: ReadonlySet<string>): Promise<SearchAnswer> {
    return this.offer.search(await this.current(), query, limit, keep);
  }

  /** The catalog from the tools each upstream has listed so far, under their pins (./listing-admission.ts). */
  fromCache(): Map<string, CatalogEntry> {
    const { entries, withheld } = this.admission.admitted();
    this.withheld = withheld;
    return entries;
  }

  private live(): ToolSource[] {
    return [...this.options.sources.values()].filter((s) => s.status().state !== 'down');
  }
}
