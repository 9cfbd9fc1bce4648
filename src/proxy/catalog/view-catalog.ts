import type { ToolError } from '../../core/errors.js';
import { settleListings, type ToolSource } from './tool-sources.js';
import type { Tool } from '@modelcontextprotocol/server';
import type { Logger } from '../../core/logger.js';
import { closestNames } from '../../core/suggest.js';
import type { ExposureSummary } from '../../tool/context.js';
import { summaryOf } from '../../tool/define.js';
import { toMcpTool } from '../../tool/mcp-shape.js';
import { keepUnderReadOnly } from '../../tool/policy.js';
import { buildCatalog, featuredNames, publishedUpstreamTool, type CatalogEntry } from './catalog.js';
import { viewPrefixes } from './view.js';
import { planExposure, type ExposurePlan } from './exposure.js';
import { metaTools } from './meta-tools.js';
import { buildSearchIndex, searchTools, type SearchAnswer, type SearchIndex } from './search-index.js';
import { reshapeTools, shapeServerTools } from './shape.js';
import type { ResolvedView } from './view.js';
import { pinOf, type PinDifference, type PinMode, type PinVerdict } from '../pins/pins.js';
import { servesAsApproved } from '../pins/lock-listing.js';
import { catalogContents } from './catalog-contents.js';
import { lockAnswered } from './lock-answered.js';

export { settleListings, type ToolSource } from './tool-sources.js';

/** What the catalog asks of the tool pins (./pin-keeper.ts): what of a server's listing may be served. */
export interface PinGate {
  /**
   * `pinFirstUse` false: a server with no pins yet is not pinned from these tools (they are an
   * earlier listing, not a live one). `capabilities`: what the listing's connection offered.
   */
  admit(server: string, tools: readonly Tool[], mode: PinMode, pinFirstUse?: boolean, capabilities?: string): PinVerdict;
  /** serve: the lock's approved tools, a listing's answer while the server starts (../pins/lock-listing.ts). */
  approved?(server: string): Tool[] | undefined;
}

/** A tool withheld by its pins, under the name the view would publish it. */
export interface WithheldTool {
  server: string;
  tool: string;
  why: PinDifference;
}

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
 * one cut short by a slow server is not, so the next listing asks again.
 */
export class ViewCatalog {
  private catalog?: Map<string, CatalogEntry>;
  private plan?: { catalog: Map<string, CatalogEntry>; plan: ExposurePlan };
  private index?: SearchIndex;
  /** The tools pins withhold, by the name the view would publish (a call by that name is told why). */
  private withheld = new Map<string, WithheldTool>();
  /** Every name a complete catalog of this view published, with where it came from: a name gone since is told so, not "unknown". */
  private readonly published = new Map<string, string>();
  /** What was said once: a differing tool served (per definition), a pin that names nothing. */
  private readonly told = new Set<string>();

  constructor(private readonly options: ViewCatalogOptions) {}

  /** Every tool pins withhold now, by the name the view would publish. */
  withheldTools(): (WithheldTool & { name: string })[] {
    return [...this.withheld].map(([name, held]) => ({ name, ...held }));
  }

  /**
   * Why a name the view does not serve would be a tool of a server refused to this caller (a
   * per_client server it has no credentials for), if it would: said so, never "unknown".
   */
  refusedTool(name: string): ToolError | undefined {
    const separator = this.separator === undefined ? '__' : this.separator;
    const prefixed = viewPrefixes(this.view) && separator !== null;
    for (const [server, source] of this.options.sources) {
      // Unprefixed, a name could be any server's: said when the view has that one server only.
      const mine = prefixed ? name.startsWith(`${server}${separator}`) : this.options.sources.size === 1;
      const refused = mine ? source.refusal?.() : undefined;
      if (refused) return refused;
    }
    return undefined;
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
    this.plan = undefined;
    this.index = undefined;
  }

  async current(): Promise<Map<string, CatalogEntry>> {
    if (this.catalog) return this.catalog;
    const wait = this.options.listWaitMs ?? 15_000;
    // A server that is down keeps its last known tools listed; their calls fail fast with UNAVAILABLE.
    // One that missed an earlier listing is not waited for again: it is announced when it answers.
    // Under enforced pins serve answers from the lock for a server still starting; its live listing follows.
    for (const [source, approved] of lockAnswered(this.view, this.options.sources, (server) => this.options.pins?.approved?.(server)))
      this.straggling(source, approved);
    const awaited = this.live().filter((s) => !this.stragglers.has(s));
    const late = await settleListings(awaited, wait);
    if (late.length) {
      this.options.logger.warn(
        `tools/list: ${late.length} upstream server(s) not ready after ${wait} ms or the grace for stragglers; their tools follow with list_changed`,
      );
      for (const source of late) this.straggling(source);
    }
    const catalog = this.fromCache();
    // Only a complete listing is kept (the hot path runs on it); one without a straggler is made again.
    if (!late.length && !this.stragglers.size) this.keep(catalog);
    else this.publish(catalog);
    return catalog;
  }

  /** A catalog made of every server's live listing (none down waits, none straggles): kept until a change invalidates it. */
  private keep(catalog: Map<string, CatalogEntry>): void {
    this.catalog = catalog;
    this.publish(catalog);
  }

  private publish(catalog: Map<string, CatalogEntry>): void {
    for (const [name, entry] of catalog) this.published.set(name, entry.kind === 'upstream' ? `server "${entry.server}"` : 'mcpkit');
  }

  /** Whether every server of the view has listed its tools in this process (or is down, its last tools kept), none straggling. */
  private complete(): boolean {
    if (this.stragglers.size) return false;
    for (const source of this.options.sources.values()) if (source.status().state !== 'down' && source.listedLive?.() !== true) return false;
    return true;
  }

  /** Servers that missed a listing and have not answered since: listings do not wait for them, and their answer is announced. */
  private readonly stragglers = new Set<ToolSource>();

  /** `approved`: what the lock answered for it; its live listing is announced only if what is served differs. */
  private straggling(source: ToolSource, approved?: readonly Tool[]): void {
    if (this.stragglers.has(source)) return;
    this.stragglers.add(source);
    void source
      .listTools()
      .catch(() => undefined)
      .finally(() => {
        this.stragglers.delete(source);
        if (!approved || !servesAsApproved(source.cachedTools(), approved)) this.options.late();
      });
  }

  /** Takes over the names an earlier catalog of the same view published (a reload re-made the hub's catalog). */
  inherit(earlier: ViewCatalog): void {
    for (const [name, from] of earlier.published) if (!this.published.has(name)) this.published.set(name, from);
  }

  /** Where a name this view published before came from, when the current catalog no longer has it. */
  goneTool(name: string): string | undefined {
    return this.catalog?.has(name) ? undefined : this.published.get(name);
  }

  /**
   * One entry, found as soon as the server that has it has answered: a slow or dead server of the
   * view does not hold up a call to another one. Unknown names wait for the whole catalog.
   */
  async entry(name: string): Promise<CatalogEntry | undefined> {
    if (this.catalog) return this.catalog.get(name);
    const cached = this.fromCache();
    // A client that calls without listing first (many do) gets the hot path too, once every server has listed.
    if (this.complete()) this.keep(cached);
    const known = cached.get(name);
    if (known) return this.listedHere(known) ? known : this.entryForCall(name);
    const live = this.live();
    const early = await new Promise<CatalogEntry | undefined>((resolve) => {
      let pending = live.length;
      if (pending === 0) resolve(undefined);
      for (const source of live) {
        void source
          .listTools()
          .catch(() => undefined)
          .then(() => {
            const found = this.fromCache().get(name);
            const usable = found && this.listedHere(found) ? found : undefined;
            if (usable || --pending === 0) resolve(usable);
          });
      }
    });
    return early ?? (await this.current()).get(name);
  }

  /**
   * The entry a call of `name` goes to, from listings this process made: a name found in an
   * earlier command's listing (a seed) starts and lists only the server it names, and counts
   * once that listing still has it. Anything else is looked up in the whole catalog, listed live.
   */
  async entryForCall(name: string): Promise<CatalogEntry | undefined> {
    for (let tries = 0; tries < this.view.servers.length; tries++) {
      const guess = this.fromCache().get(name);
      // A tool its pins withhold is looked up on its own server only: once a live listing still
      // withholds it, the caller is told so (withheldTool) and no other server is started.
      const held = guess ? undefined : this.withheld.get(name);
      if (held) {
        const source = this.options.sources.get(held.server)!;
        if (source.listedLive?.() === true && this.withheld.has(name)) return undefined;
        await source.listTools().catch(() => undefined);
        if (source.listedLive?.() !== true) break;
        continue;
      }
      if (guess?.kind !== 'upstream') break;
      if (this.listedHere(guess)) return guess;
      const source = this.options.sources.get(guess.server)!;
      await source.listTools().catch(() => undefined);
      if (source.listedLive?.() !== true) break;
    }
    return (await this.current()).get(name);
  }

  /** An upstream entry counts for a call only from a listing this process made (not from a seed). */
  private listedHere(entry: CatalogEntry): boolean {
    return entry.kind !== 'upstream' || this.options.sources.get(entry.server)?.listedLive?.() !== false;
  }

  async names(): Promise<string[]> {
    return [...(await this.current()).keys()];
  }

  /** The full catalog as MCP tools, whatever the exposure. */
  async tools(): Promise<Tool[]> {
    return [...(await this.current()).values()].map(publish);
  }

  /** How tools/list is made from the current catalog (./exposure.ts). */
  async exposure(): Promise<ExposurePlan> {
    const catalog = await this.current();
    if (this.plan?.catalog === catalog) return this.plan.plan;
    const tools = [...catalog.values()].map(publish);
    const plan = planExposure(tools, {
      exposure: this.view.exposure,
      budget: this.view.tokenBudget,
      pins: this.view.pins,
      featured: featuredNames(catalog),
      meta: () =>
        metaTools(
          this.label,
          { ...(this.view.description ? { description: this.view.description } : {}), count: tools.length, contents: this.contents(catalog) },
          this.view.readOnly,
          this.view.exposure === 'code' ? 'code' : 'search',
        ),
    });
    // Only a complete listing is kept; one cut short is planned again.
    if (this.catalog === catalog) {
      this.plan = { catalog, plan };
      const where = this.view.name ? `tool_views.${this.view.name}.pin` : 'serve.pin';
      // Said once per pin: the plan is made again after every list_changed.
      for (const pin of plan.unknownPins.filter((p) => !this.told.has(`pin:${p}`))) {
        this.told.add(`pin:${pin}`);
        this.options.logger.warn(`${where}: "${pin}" names no tool of the view ("mcpkit view tools" lists them)`);
      }
    }
    return plan;
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

  /** The search meta-tool: catalog tools ranked for a task's words; `keep`: the names a client may call. */
  async search(query: string, limit: number, keep?: ReadonlySet<string>): Promise<SearchAnswer> {
    const catalog = await this.current();
    this.index ??= buildSearchIndex([...catalog.values()].map((entry) => ({ tool: publish(entry), source: this.sourceOf(entry) })));
    const results = searchTools(this.index, query, limit, keep).map((h) => ({
      name: h.name,
      score: h.score,
      description: summaryOf(publish(catalog.get(h.name)!)),
    }));
    return { total: keep?.size ?? catalog.size, results };
  }

  /** The catalog from the tools each upstream has listed so far (none, for one not yet connected). */
  fromCache(): Map<string, CatalogEntry> {
    const withheld: { server: string; tools: ReturnType<typeof shapeServerTools> }[] = [];
    const why = new Map<string, WithheldTool>();
    const fromLock = lockAnswered(this.view, this.options.sources, (server) => this.options.pins?.approved?.(server));
    const upstreamTools = this.view.servers.map(({ name, config, view }) => {
      const source = this.options.sources.get(name)!;
      const listed = fromLock.get(source) ?? source.cachedTools();
      // A seed is checked against the pins, but never pinned on first use: only a live listing is.
      const verdict = this.admit(name, listed, config.pinning ?? this.view.pinning, source.listedLive?.() !== false, source.capabilitySet?.());
      const shape = (tools: Tool[]) => {
        const own = shapeServerTools(tools, config);
        const shaped = view ? reshapeTools(own, view) : own;
        return this.view.readOnly ? shaped.filter((t) => keepUnderReadOnly(t.tool.annotations)) : shaped;
      };
      const notServed = verdict.differing.filter((d) => d.withheld);
      for (const d of notServed) why.set(`${name}\u0000${d.tool.name}`, { server: name, tool: d.tool.name, why: d.why });
      withheld.push({ server: name, tools: shape(notServed.map((d) => d.tool)) });
      return { server: name, tools: shape(verdict.served) };
    });
    const composites = this.view.readOnly ? [] : this.view.composites;
    const entries = buildCatalog(this.view.local, upstreamTools, { separator: this.view.separator, prefix: viewPrefixes(this.view) }, composites);
    this.withheld = new Map(
      buildCatalog([], withheld, { separator: this.view.separator, prefix: viewPrefixes(this.view) }).flatMap((e) =>
        e.kind === 'upstream' ? [[e.name, why.get(`${e.server}\u0000${e.upstreamName}`)!] as const] : [],
      ),
    );
    return new Map(entries.map((e) => [e.name, e]));
  }

  /** The server's listing under its pins; a tool served though it differs (warn) is told to the view's clients once. */
  private admit(server: string, tools: Tool[], mode: PinMode, live: boolean, capabilities: string | undefined): PinVerdict {
    const verdict = this.options.pins?.admit(server, tools, mode, live, live ? capabilities : undefined) ?? { served: tools, differing: [], firstUse: false };
    for (const { tool, why, withheld } of verdict.differing) {
      if (withheld) continue;
      const key = `${server}\u0000${tool.name}\u0000${pinOf(tool).sha256}`;
      if (this.told.has(key)) continue;
      this.told.add(key);
      this.options.differs?.(server, tool.name, why);
    }
    return verdict;
  }

  private live(): ToolSource[] {
    return [...this.options.sources.values()].filter((s) => s.status().state !== 'down');
  }

  /** The kinds of tools in the catalog, for the meta-tools' description: mcpkit's groups, then each server. */
  private contents(catalog: Map<string, CatalogEntry>): string[] {
    return catalogContents(catalog, this.options.groupSummaries, (server) => this.serverDescription(server));
  }

  /** A server's `description` in the config, which says what it is for. */
  private serverDescription(name: string): string | undefined {
    return this.view.servers.find((s) => s.name === name)?.config.description;
  }

  /** Where a tool comes from, in words a task may use: the server's name and description, or mcpkit's group. */
  private sourceOf(entry: CatalogEntry): string {
    if (entry.kind === 'upstream') {
      const about = this.serverDescription(entry.server);
      return about ? `${entry.server} ${about}` : entry.server;
    }
    return entry.kind === 'local' ? `${entry.tool.group} ${this.options.groupSummaries.get(entry.tool.group) ?? ''}` : '';
  }
}

/** A catalog entry as MCP publishes it. */
export function publish(entry: CatalogEntry): Tool {
  if (entry.kind === 'upstream') return publishedUpstreamTool(entry);
  return entry.kind === 'local' ? toMcpTool(entry.tool) : { ...entry.tool, name: entry.name };
}
