import {
  UriTemplate,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType,
} from '@modelcontextprotocol/server';
import { ToolError } from '../core/errors.js';
import type { ModernRequest } from './eras/era.js';
import { compileFilter, type FilterRule } from './catalog/filter.js';
import { DEFAULT_SEPARATOR, prefixedName, uniqueNames } from './catalog/names.js';
import type { Upstream } from './upstream/upstream.js';
import { notApprovedError } from './calls/not-approved.js';
import { definitionOf, type ItemVerdict, type PinDifference, type PinKind, type PinMode } from './pins/pins.js';

/** What the router asks of the pins (./pin-keeper.ts): what of a server's prompts, resources or templates may be served. */
export interface ItemGate {
  admitItems<T extends object>(kind: Exclude<PinKind, 'tools'>, server: string, items: readonly T[], mode: PinMode): ItemVerdict<T>;
}

/** Something the pins withhold, and why. */
interface Withheld {
  server: string;
  why: PinDifference;
}

/**
 * Prompts and resources of a view's upstream servers, filtered by the same ordered rules as their
 * tools (server `filter:`, then the view's), matched against prompt and resource names. Prompts
 * are prefixed like tools when the view has several servers; resource URIs are passed unchanged
 * and routed back to the server that listed them.
 */
export interface RoutedServer {
  upstream: Upstream;
  rules: readonly (readonly FilterRule[])[];
  /** The server's pinning mode (enforce when absent). */
  pinning?: PinMode;
}

/** Where a resource URI goes: the server that lists it, and the name of the resource or template it is shown under. */
interface Route {
  upstream: Upstream;
  name: string;
}

/** How often a URI not in the last listings makes the servers be listed again. */
export const RELIST_MS = 1000;

const allowedBy = (rules: RoutedServer['rules']) => {
  const filters = rules.map((r) => compileFilter(r));
  return (name: string) => filters.every((f) => f(name).allowed);
};

export class PromptResourceRouter {
  private readonly servers: RoutedServer[];
  private readonly separator: string | null;
  private prompts = new Map<string, { upstream: Upstream; name: string }>();
  /** Each listed resource's URI: its server, and the name the view shows it under (a client's rules go by names). */
  private resources = new Map<string, Route>();
  private hiddenResources = new Set<string>();
  private templates = new Map<string, Upstream>();
  private matchers: ({ template: UriTemplate; uriTemplate: string } & Route)[] = [];
  /** What the pins withhold: prompts by the name the view would publish, resources by URI. */
  private withheldPrompts = new Map<string, Withheld>();
  private withheldResources = new Map<string, Withheld>();
  /** When a URI not in the lists last made them be asked for again, and that listing while under way. */
  private readonly relisting = {
    resources: { at: 0, pending: undefined as Promise<void> | undefined },
    templates: { at: 0, pending: undefined as Promise<void> | undefined },
  };

  constructor(
    servers: RoutedServer[],
    separator: string | null | undefined,
    /** Whether prompt names get their server's name in front (ResolvedView.prefixed); default: with several servers. */
    private readonly prefixed = servers.length > 1,
    /** Pinning of prompts, resources and templates; absent: everything listed is served. */
    private readonly gate?: ItemGate,
  ) {
    this.servers = servers;
    this.separator = separator === undefined ? DEFAULT_SEPARATOR : separator;
  }

  private live(): RoutedServer[] {
    return this.servers.filter((s) => s.upstream.status().state !== 'down');
  }

  /**
   * A server's listing of one kind under its pins: what is served, and what is withheld (by key).
   * A listing that failed is served as nothing and never pinned (it is not an empty listing).
   */
  private async admitted<T extends object>(
    kind: Exclude<PinKind, 'tools'>,
    server: RoutedServer,
    list: () => Promise<T[]>,
  ): Promise<{ served: T[]; withheld: { item: T; why: PinDifference }[] }> {
    const items = await list().catch(() => undefined);
    if (!items) return { served: [], withheld: [] };
    if (!this.gate) return { served: items, withheld: [] };
    const verdict = this.gate.admitItems(kind, server.upstream.name, items, server.pinning ?? 'enforce');
    return { served: verdict.served, withheld: verdict.differing.filter((d) => d.withheld).map((d) => ({ item: d.item, why: d.why })) };
  }

  async listPrompts(): Promise<Prompt[]> {
    const prefix = this.prefixed ? this.separator : null;
    const lists = await Promise.all(
      this.live().map(async (s) => {
        const allowed = allowedBy(s.rules);
        const { served, withheld } = await this.admitted('prompts', s, () => s.upstream.reads.listPrompts());
        return {
          served: served.filter((p) => allowed(p.name)).map((p) => ({ server: s, prompt: p })),
          withheld: withheld.filter((w) => allowed(w.item.name)).map((w) => ({ server: s, prompt: w.item, why: w.why })),
        };
      }),
    );
    const flat = lists.flatMap((l) => l.served);
    const held = lists.flatMap((l) => l.withheld);
    // Names as the view would publish them with the withheld ones among them, so a name never moves when one is approved.
    const names = uniqueNames([...flat, ...held].map(({ server, prompt }) => prefixedName(server.upstream.name, prompt.name, prefix)));
    this.prompts = new Map(flat.map(({ server, prompt }, i) => [names[i]!, { upstream: server.upstream, name: prompt.name }]));
    this.withheldPrompts = new Map(held.map(({ server, why }, i) => [names[flat.length + i]!, { server: server.upstream.name, why }]));
    return flat.map(({ prompt }, i) => ({ ...(definitionOf('prompts', prompt) as unknown as Prompt), name: names[i]! }));
  }

  async getPrompt(name: string, args: Record<string, string> | undefined, modern?: ModernRequest): Promise<GetPromptResult> {
    if (!this.prompts.has(name)) await this.listPrompts();
    const route = this.prompts.get(name);
    const held = this.withheldPrompts.get(name);
    if (!route && held) throw notApprovedError({ noun: 'prompt', name, ...held });
    if (!route) throw new ToolError('NOT_FOUND', `Unknown prompt: ${name}.`, { hint: 'Call prompts/list for the available prompts.' });
    return route.upstream.reads.getPrompt(route.name, args, modern);
  }

  async listResources(): Promise<Resource[]> {
    const lists = await Promise.all(
      this.live().map(async (s) => ({ server: s, ...(await this.admitted('resources', s, () => s.upstream.reads.listResources())) })),
    );
    const resources = new Map<string, Route>();
    const hidden = new Set<string>();
    const withheldResources = new Map<string, Withheld>();
    const out: Resource[] = [];
    for (const { server, served, withheld } of lists) {
      const allowed = allowedBy(server.rules);
      for (const { item, why } of withheld) if (allowed(item.name)) withheldResources.set(item.uri, { server: server.upstream.name, why });
      for (const resource of served) {
        if (!allowed(resource.name)) {
          hidden.add(resource.uri);
        } else if (!resources.has(resource.uri)) {
          resources.set(resource.uri, { upstream: server.upstream, name: resource.name });
          out.push(definitionOf('resources', resource) as unknown as Resource);
        }
      }
    }
    this.resources = resources;
    this.hiddenResources = hidden;
    this.withheldResources = withheldResources;
    return out;
  }

  async listResourceTemplates(): Promise<ResourceTemplateType[]> {
    const lists = await Promise.all(
      this.live().map(async (s) => {
        const allowed = allowedBy(s.rules);
        const { served } = await this.admitted('resource_templates', s, () => s.upstream.reads.listResourceTemplates());
        return served.filter((t) => allowed(t.name)).map((template) => ({ template, upstream: s.upstream }));
      }),
    );
    this.templates = new Map(lists.flat().map(({ template, upstream }) => [template.uriTemplate, upstream]));
    this.matchers = lists.flat().flatMap(({ template, upstream }) => {
      try {
        return [{ template: new UriTemplate(template.uriTemplate), uriTemplate: template.uriTemplate, upstream, name: template.name }];
      } catch {
        return []; // a template that does not parse matches nothing
      }
    });
    return lists.flat().map(({ template }) => definitionOf('resource_templates', template) as unknown as ResourceTemplateType);
  }

  /** The server and its own name behind an exposed prompt name (completion/complete by prompt). */
  async promptOwner(name: string): Promise<{ upstream: Upstream; name: string } | undefined> {
    if (!this.prompts.has(name)) await this.listPrompts();
    return this.prompts.get(name);
  }

  /**
   * The name a prompt, resource or template is shown under in this view, which a client's rules
   * judge (its tools rules go by published names): a prompt by its published name, a resource by
   * URI (listed, or an instance of a listed template), a template by its URI template (as
   * completion/complete names it). Undefined when the view shows nothing so named: what is
   * hidden or withheld is reached by no request.
   */
  async shownName(target: { prompt: string } | { uri: string } | { template: string }): Promise<string | undefined> {
    if ('prompt' in target) return (await this.promptOwner(target.prompt)) ? target.prompt : undefined;
    if ('uri' in target) return this.resourceName(target.uri);
    if (!this.templates.has(target.template)) await this.listResourceTemplates();
    return this.matchers.find((m) => m.uriTemplate === target.template)?.name ?? (await this.resourceName(target.template));
  }

  /** The server that published a resource template (completion/complete by template). */
  async templateOwner(uriTemplate: string): Promise<Upstream | undefined> {
    if (!this.templates.has(uriTemplate)) await this.listResourceTemplates();
    return this.templates.get(uriTemplate);
  }

  /**
   * The server a resource URI belongs to, if the view shows it: a resource it lists, or an
   * instance of a template it lists (matched as RFC 6570 says, not by its start). A URI the view
   * hides (its server's filter left it out), or that nothing visible names, belongs to none: it is
   * neither read nor subscribed to. The listings are asked again for a URI not seen yet, at most
   * once per RELIST_MS, so a request naming thousands of URIs costs one listing, not one each.
   */
  async resourceOwner(uri: string): Promise<Upstream | undefined> {
    return (await this.resourceRoute(uri))?.upstream;
  }

  /** The name a resource URI is shown under (a listed resource's, else its template's), found as resourceOwner finds its server. */
  async resourceName(uri: string): Promise<string | undefined> {
    return (await this.resourceRoute(uri))?.name;
  }

  private async resourceRoute(uri: string): Promise<Route | undefined> {
    if (!this.resources.has(uri) && !this.hiddenResources.has(uri)) await this.relist('resources');
    // A resource the pins withhold is not reached through a template that matches its URI either.
    if (this.hiddenResources.has(uri) || (this.withheldResources.has(uri) && !this.resources.has(uri))) return undefined;
    const listed = this.resources.get(uri);
    if (listed) return listed;
    if (!this.matchers.some((m) => m.template.match(uri))) await this.relist('templates');
    return this.matchers.find((m) => m.template.match(uri) !== null);
  }

  /** Lists again, unless a listing is under way (then waits for it) or began less than RELIST_MS ago. */
  private async relist(what: 'resources' | 'templates'): Promise<void> {
    const state = this.relisting[what];
    if (state.pending) return state.pending;
    if (Date.now() - state.at <= RELIST_MS) return;
    state.at = Date.now();
    state.pending = (what === 'resources' ? this.listResources() : this.listResourceTemplates()).then(
      () => undefined,
      () => undefined,
    );
    await state.pending;
    state.pending = undefined;
  }

  async readResource(uri: string, modern?: ModernRequest): Promise<ReadResourceResult> {
    const owner = await this.resourceOwner(uri);
    const held = owner ? undefined : this.withheldResources.get(uri);
    if (held) throw notApprovedError({ noun: 'resource', name: uri, ...held });
    if (!owner)
      throw new ToolError('NOT_FOUND', `Resource not found: ${uri}.`, {
        details: { uri },
        hint: 'Call resources/list and resources/templates/list for what this view offers.',
      });
    return owner.reads.readResource(uri, modern);
  }
}
