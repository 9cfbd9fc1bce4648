import type { Logger } from '../../core/logger.js';
import { summaryOf } from '../../tool/define.js';
import { catalogContents } from './catalog-contents.js';
import { featuredNames, publish, type CatalogEntry } from './catalog.js';
import { planExposure, type ExposurePlan } from './exposure.js';
import { metaTools } from './meta-tools.js';
import { buildSearchIndex, searchTools, type SearchAnswer, type SearchIndex } from './search-index.js';
import type { ResolvedView } from './view.js';

/**
 * What a view's clients are offered of a catalog: the tools/list plan (./exposure.ts) with the
 * meta-tools' description of what is inside, and the search meta-tool's ranking. Apart from
 * ./view-catalog.ts, which makes and keeps the catalog: this part is handed one and only reads it,
 * keeping what it made from it (a plan, an index) until the catalog changes.
 */
export class CatalogOffer {
  private plan?: { catalog: ReadonlyMap<string, CatalogEntry>; plan: ExposurePlan };
  private index?: SearchIndex;
  /** The pins that name no tool, said once each. */
  private readonly toldPins = new Set<string>();

  constructor(
    private readonly view: ResolvedView,
    private readonly logger: Logger,
    /** What each of mcpkit's groups is for: the meta-tools name them, and search ranks on them. */
    private readonly groupSummaries: ReadonlyMap<string, string>,
  ) {}

  /** What was made from a catalog no longer holds (a server's list_changed). */
  forget(): void {
    this.plan = undefined;
    this.index = undefined;
  }

  /** How tools/list is made from `catalog`; `kept`: it is complete, so the plan is kept with it and unknown pins are said. */
  exposure(catalog: ReadonlyMap<string, CatalogEntry>, kept: boolean): ExposurePlan {
    if (this.plan?.catalog === catalog) return this.plan.plan;
    const view = this.view;
    const tools = [...catalog.values()].map(publish);
    const plan = planExposure(tools, {
      exposure: view.exposure,
      budget: view.tokenBudget,
      pins: view.pins,
      featured: featuredNames(catalog),
      meta: () =>
        metaTools(
          view.name ?? 'mcpkit',
          { ...(view.description ? { description: view.description } : {}), count: tools.length, contents: this.contents(catalog) },
          view.readOnly,
          view.exposure === 'code' ? 'code' : 'search',
        ),
    });
    // Only a complete listing is kept; one cut short is planned again.
    if (kept) {
      this.plan = { catalog, plan };
      const where = view.name ? `tool_views.${view.name}.pin` : 'serve.pin';
      // Said once per pin: the plan is made again after every list_changed.
      for (const pin of plan.unknownPins.filter((p) => !this.toldPins.has(p))) {
        this.toldPins.add(pin);
        this.logger.warn(`${where}: "${pin}" names no tool of the view ("mcpkit view tools" lists them)`);
      }
    }
    return plan;
  }

  /** The search meta-tool: `catalog`'s tools ranked for a task's words; `keep`: the names a client may call. */
  search(catalog: ReadonlyMap<string, CatalogEntry>, query: string, limit: number, keep?: ReadonlySet<string>): SearchAnswer {
    this.index ??= buildSearchIndex([...catalog.values()].map((entry) => ({ tool: publish(entry), source: this.sourceOf(entry) })));
    const results = searchTools(this.index, query, limit, keep).map((h) => ({
      name: h.name,
      score: h.score,
      description: summaryOf(publish(catalog.get(h.name)!)),
    }));
    return { total: keep?.size ?? catalog.size, results };
  }

  /** The kinds of tools in the catalog, for the meta-tools' description: mcpkit's groups, then each server. */
  private contents(catalog: ReadonlyMap<string, CatalogEntry>): string[] {
    return catalogContents(catalog, this.groupSummaries, (server) => this.serverDescription(server));
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
    return entry.kind === 'local' ? `${entry.tool.group} ${this.groupSummaries.get(entry.tool.group) ?? ''}` : '';
  }
}
