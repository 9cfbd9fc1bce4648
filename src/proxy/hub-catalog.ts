import type { Tool } from '@modelcontextprotocol/server';
import type { ToolAccess } from '../tool/tool-access.js';
import type { ExposureSummary } from '../tool/view-opener.js';
import { codeLimitsOf, type CodeLimits } from '../code/limits.js';
import { declarationLimitsOf } from '../code/declaration-limits.js';
import type { CallRouter, Found } from './calls/call-router.js';
import type { CatalogEntry } from './catalog/catalog.js';
import { bareName, OWN_GROUP, toolTreeOf, type CodeTools } from './catalog/code-names.js';
import { hiddenTools, type HiddenTool } from './catalog/hidden-tools.js';
import { metaToolNames } from './catalog/meta-tools.js';
import type { ResolvedView } from './catalog/view.js';
import { publish, type ViewCatalog } from './catalog/view-catalog.js';
import type { HubCatalog, LookupReach, NamedEntry } from './hub-roles.js';
import type { Upstream } from './upstream/upstream.js';

/** What a hub serves now (a reload makes them anew: the role reads them on every use). */
export interface HubParts {
  view: ResolvedView;
  upstreams: Upstream[];
  catalog: ViewCatalog;
  router: CallRouter;
}

/** The hub's catalog role (./hub-roles.ts): what the view offers, and what a name is. */
export class HubCatalogRole implements HubCatalog {
  constructor(private readonly parts: () => HubParts) {}

  lookup(name: string, how: { reach?: LookupReach; judge: true }): Promise<Found>;
  lookup(name: string, how?: { reach?: LookupReach }): Promise<NamedEntry>;
  async lookup(name: string, how: { reach?: LookupReach; judge?: boolean } = {}): Promise<Found | NamedEntry> {
    const { catalog, router } = this.parts();
    const find = finder(catalog, how.reach ?? 'listed');
    if (how.judge) return router.find(name, undefined, find);
    const entry = await find(name);
    return entry ? { entry, ...(entry.kind === 'upstream' ? { server: entry.server } : {}) } : {};
  }

  async list(access?: ToolAccess): Promise<Tool[]> {
    const { catalog, router } = this.parts();
    const listed = (await catalog.exposure()).listed;
    if (!access?.allows) return listed;
    const entries = await catalog.current();
    const out: Tool[] = [];
    for (const tool of listed) {
      const entry = entries.get(tool.name);
      // The meta-tools are not catalog entries: they stay, and find only what the client may call.
      if (!(entry ? await router.permitted(entry, access) : router.isMeta(tool.name))) continue;
      // To a read-only client, an mcpkit writer that refuses to write under read-only is a reader (as under serve --read-only).
      const reader = access.readOnly && entry?.kind === 'local' && entry.tool.enforcesReadOnly && !tool.annotations?.readOnlyHint;
      out.push(reader ? { ...tool, annotations: { ...tool.annotations, readOnlyHint: true, destructiveHint: false } } : tool);
    }
    return out;
  }

  exposurePlan(): Promise<ExposureSummary> {
    return this.parts().catalog.summary();
  }

  catalogTools(): Promise<Tool[]> {
    return this.parts().catalog.tools();
  }

  names(): Promise<string[]> {
    return this.parts().catalog.names();
  }

  knownTools(): { tools: { tool: Tool; server?: string }[]; unlisted: string[] } {
    const { upstreams, catalog } = this.parts();
    const unlisted = upstreams.filter((u) => u.cachedTools().length === 0 && !u.listedLive()).map((u) => u.name);
    const entries = [...catalog.fromCache().values()].filter((e) => e.kind !== 'local');
    return { tools: entries.map((e) => ({ tool: publish(e), ...(e.kind === 'upstream' ? { server: e.server } : {}) })), unlisted };
  }

  hiddenTools(): HiddenTool[] {
    const { view, upstreams } = this.parts();
    return view.servers.flatMap((server, i) => hiddenTools(server.name, upstreams[i]?.cachedTools() ?? [], server.config, server.view, view.readOnly));
  }

  withheldTools(): ReturnType<ViewCatalog['withheldTools']> {
    return this.parts().catalog.withheldTools();
  }

  withheldTool(name: string): ReturnType<ViewCatalog['withheldTool']> {
    return this.parts().catalog.withheldTool(name);
  }

  get codeRun(): { tool: string; limits: CodeLimits; settings: string } | undefined {
    const { view, catalog } = this.parts();
    if (view.exposure !== 'code') return undefined;
    return { tool: metaToolNames(catalog.label, 'code').run!, ...this.codeLimits() };
  }

  codeLimits(): { limits: CodeLimits; settings: string } {
    const { view } = this.parts();
    return { limits: codeLimitsOf(view.code), settings: view.name ? `tool_views.${view.name}.code` : 'serve.code' };
  }

  /**
   * What a code-mode script of this client reaches, as `tools`: every tool it may call, and the
   * withheld tools its rules allow (a call of one is refused TOOL_NOT_APPROVED, as a direct call is).
   */
  async codeTools(access?: ToolAccess): Promise<CodeTools> {
    const { router, catalog, view } = this.parts();
    const declared = await router.declaredTools(access);
    const held = catalog
      .withheldTools()
      .filter((w) => !access?.allows || access.allows({ name: w.name, readOnly: false }) || access.allows({ name: w.name, readOnly: true }))
      .map((w) => ({ group: w.server, name: bareName(w.name, w.server, catalog.separator), published: w.name }));
    const separator = catalog.separator;
    // What a name the tree does not have would be published under: the call is then judged as any call of it.
    const publishedFor = (group: string, name: string) => (group === OWN_GROUP || separator === null ? name : `${group}${separator ?? '__'}${name}`);
    return { declared, tree: toolTreeOf([...declared, ...held]), publishedFor, declarationLimits: declarationLimitsOf(view.code) };
  }
}

/** How an entry is found at each reach (see LookupReach). */
function finder(catalog: ViewCatalog, reach: LookupReach): (name: string) => Promise<CatalogEntry | undefined> {
  if (reach === 'known') return async (name) => catalog.known?.get(name);
  if (reach === 'owner') return (name) => catalog.entryForCall(name);
  return (name) => catalog.entry(name);
}
