import {
  UriTemplate,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType,
} from '@modelcontextprotocol/server';
import { ToolError } from '../core/errors.js';
import type { ModernRequest } from '../tool/context.js';
import { compileFilter, type FilterRule } from './filter.js';
import { DEFAULT_SEPARATOR, prefixedName, uniqueNames } from './names.js';
import type { Upstream } from './upstream.js';

/**
 * Prompts and resources of a view's upstream servers, filtered by the same ordered rules as their
 * tools (server `filter:`, then the view's), matched against prompt and resource names. Prompts
 * are prefixed like tools when the view has several servers; resource URIs are passed unchanged
 * and routed back to the server that listed them.
 */
export interface RoutedServer {
  upstream: Upstream;
  rules: readonly (readonly FilterRule[])[];
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
  private resources = new Map<string, Upstream>();
  private hiddenResources = new Set<string>();
  private templates = new Map<string, Upstream>();
  private matchers: { template: UriTemplate; upstream: Upstream }[] = [];
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
  ) {
    this.servers = servers;
    this.separator = separator === undefined ? DEFAULT_SEPARATOR : separator;
  }

  private live(): RoutedServer[] {
    return this.servers.filter((s) => s.upstream.status().state !== 'down');
  }

  async listPrompts(): Promise<Prompt[]> {
    const prefix = this.prefixed ? this.separator : null;
    const lists = await Promise.all(
      this.live().map(async (s) => {
        const allowed = allowedBy(s.rules);
        const prompts = await s.upstream.listPrompts().catch(() => [] as Prompt[]);
        return prompts.filter((p) => allowed(p.name)).map((p) => ({ server: s, prompt: p }));
      }),
    );
    const flat = lists.flat();
    const names = uniqueNames(flat.map(({ server, prompt }) => prefixedName(server.upstream.name, prompt.name, prefix)));
    this.prompts = new Map(flat.map(({ server, prompt }, i) => [names[i]!, { upstream: server.upstream, name: prompt.name }]));
    return flat.map(({ prompt }, i) => ({ ...prompt, name: names[i]! }));
  }

  async getPrompt(name: string, args: Record<string, string> | undefined, modern?: ModernRequest): Promise<GetPromptResult> {
    if (!this.prompts.has(name)) await this.listPrompts();
    const route = this.prompts.get(name);
    if (!route) throw new ToolError('NOT_FOUND', `Unknown prompt: ${name}.`, { hint: 'Call prompts/list for the available prompts.' });
    return route.upstream.getPrompt(route.name, args, modern);
  }

  async listResources(): Promise<Resource[]> {
    const lists = await Promise.all(this.live().map(async (s) => ({ server: s, resources: await s.upstream.listResources().catch(() => [] as Resource[]) })));
    const resources = new Map<string, Upstream>();
    const hidden = new Set<string>();
    const out: Resource[] = [];
    for (const { server, resources: list } of lists) {
      const allowed = allowedBy(server.rules);
      for (const resource of list) {
        if (!allowed(resource.name)) {
          hidden.add(resource.uri);
        } else if (!resources.has(resource.uri)) {
          resources.set(resource.uri, server.upstream);
          out.push(resource);
        }
      }
    }
    this.resources = resources;
    this.hiddenResources = hidden;
    return out;
  }

  async listResourceTemplates(): Promise<ResourceTemplateType[]> {
    const lists = await Promise.all(
      this.live().map(async (s) => {
        const allowed = allowedBy(s.rules);
        const list = (await s.upstream.listResourceTemplates().catch(() => [] as ResourceTemplateType[])).filter((t) => allowed(t.name));
        return list.map((template) => ({ template, upstream: s.upstream }));
      }),
    );
    this.templates = new Map(lists.flat().map(({ template, upstream }) => [template.uriTemplate, upstream]));
    this.matchers = lists.flat().flatMap(({ template, upstream }) => {
      try {
        return [{ template: new UriTemplate(template.uriTemplate), upstream }];
      } catch {
        return []; // a template that does not parse matches nothing
      }
    });
    return lists.flat().map(({ template }) => template);
  }

  /** The server and its own name behind an exposed prompt name (completion/complete by prompt). */
  async promptOwner(name: string): Promise<{ upstream: Upstream; name: string } | undefined> {
    if (!this.prompts.has(name)) await this.listPrompts();
    return this.prompts.get(name);
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
    if (!this.resources.has(uri) && !this.hiddenResources.has(uri)) await this.relist('resources');
    if (this.hiddenResources.has(uri)) return undefined;
    const listed = this.resources.get(uri);
    if (listed) return listed;
    if (!this.matchers.some((m) => m.template.match(uri))) await this.relist('templates');
    return this.matchers.find((m) => m.template.match(uri) !== null)?.upstream;
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
    if (!owner)
      throw new ToolError('NOT_FOUND', `Resource not found: ${uri}.`, {
        details: { uri },
        hint: 'Call resources/list and resources/templates/list for what this view offers.',
      });
    return owner.readResource(uri, modern);
  }
}
