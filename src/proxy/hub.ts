import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpkitConfig } from '../config/schema.js';
import { ToolError } from '../core/errors.js';
import { toMcpTool } from '../core/mcp-tool.js';
import type { AnyTool, ToolContext } from '../core/tool.js';
import { createArgsValidator, type ArgsCheck } from './args-validator.js';
import { buildCatalog, publishedUpstreamTool, type CatalogEntry } from './catalog.js';
import { shapeServerTools } from './shape.js';
import { Upstream, type UpstreamStatus } from './upstream.js';

/**
 * What an MCP front end serves: mcpkit's own tools plus the shaped tools of every enabled
 * upstream server, under one catalog. Upstreams connect lazily and in parallel; a slow one is left
 * out of a listing after `listWaitMs` and announced with list_changed once it arrives.
 */
export interface HubOptions {
  local: readonly AnyTool[];
  config: McpkitConfig;
  context: ToolContext;
  version: string;
  /** How long tools/list waits for upstreams that are still starting. */
  listWaitMs?: number;
  stderr?: (line: string) => void;
}

export type CallOutcome = { found: false } | { found: true; result: CallToolResult };

export class ProxyHub {
  private readonly options: HubOptions;
  private readonly upstreams: Upstream[];
  private catalog?: Map<string, CatalogEntry>;
  private readonly listeners = new Set<() => void>();
  private readonly argsCheck: (schema: object) => ArgsCheck;
  private readonly checks = new WeakMap<CatalogEntry, ArgsCheck>();

  constructor(options: HubOptions) {
    this.options = options;
    const { logger } = options.context;
    this.argsCheck = createArgsValidator((reason) => logger.warn(`an upstream input schema is not enforced: ${reason}`));
    this.upstreams = Object.entries(options.config.mcp_servers)
      .filter(([, server]) => server.disabled !== true)
      .map(
        ([name, config]) =>
          new Upstream({
            name,
            config,
            logger,
            version: options.version,
            stderr: options.stderr ?? ((line) => process.stderr.write(line)),
            onToolsChanged: () => this.toolsChanged(),
          }),
      );
  }

  onListChanged(listener: () => void): void {
    this.listeners.add(listener);
  }

  status(): UpstreamStatus[] {
    return this.upstreams.map((u) => u.status());
  }

  /** Starts every upstream now instead of on first use (`serve --eager`). */
  async warmUp(): Promise<void> {
    await Promise.allSettled(this.upstreams.map((u) => u.listTools()));
  }

  async list(): Promise<Tool[]> {
    const catalog = await this.currentCatalog();
    return [...catalog.values()].map((entry) => (entry.kind === 'upstream' ? publishedUpstreamTool(entry) : toMcpTool(entry.tool)));
  }

  /** Exposed names in order, local ones included (for suggestions). */
  async names(): Promise<string[]> {
    return [...(await this.currentCatalog()).keys()];
  }

  /** The server an exposed name belongs to, from the last catalog. */
  serverOf(name: string): string | undefined {
    const entry = this.catalog?.get(name);
    return entry?.kind === 'upstream' ? entry.server : undefined;
  }

  async entry(name: string): Promise<CatalogEntry | undefined> {
    return (await this.currentCatalog()).get(name);
  }

  /** Forwards a call of an upstream tool, after checking its arguments against the upstream's schema. */
  async callUpstream(entry: Extract<CatalogEntry, { kind: 'upstream' }>, args: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<CallToolResult> {
    let check = this.checks.get(entry);
    if (!check) {
      check = this.argsCheck(entry.tool.inputSchema);
      this.checks.set(entry, check);
    }
    const issues = check(args ?? {});
    if (issues.length) {
      throw new ToolError('INVALID_INPUT', `Invalid arguments for ${entry.name}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
        details: { tool: entry.name, issues },
        hint: 'Read the tool\'s inputSchema in tools/list; the call was not sent to the upstream server.',
      });
    }
    const upstream = this.upstreams.find((u) => u.name === entry.server)!;
    return upstream.callTool(entry.upstreamName, args, signal);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.upstreams.map((u) => u.close()));
  }

  private toolsChanged(): void {
    this.catalog = undefined;
    for (const listener of this.listeners) listener();
  }

  private async currentCatalog(): Promise<Map<string, CatalogEntry>> {
    if (this.catalog) return this.catalog;
    const wait = this.options.listWaitMs ?? 15_000;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, wait);
      timer.unref();
    });
    let late = false;
    // A server that is down keeps its last known tools listed; their calls fail fast with UNAVAILABLE.
    const live = this.upstreams.filter((u) => u.status().state !== 'down');
    const all = Promise.allSettled(live.map((u) => u.listTools()));
    const settled = await Promise.race([
      all,
      deadline.then(() => {
        late = true;
        return undefined;
      }),
    ]);
    clearTimeout(timer);
    if (late || !settled) {
      this.options.context.logger.warn(`tools/list: some upstream servers were not ready after ${wait} ms; their tools follow with list_changed`);
      void all.then(() => this.toolsChanged());
    }
    const upstreamTools = this.upstreams.map((u) => ({ server: u.name, tools: shapeServerTools(u.cachedTools(), this.options.config.mcp_servers[u.name]!) }));
    const entries = buildCatalog(this.options.local, upstreamTools);
    const catalog = new Map(entries.map((e) => [e.name, e]));
    // A listing cut short is not cached: the next one asks the late servers again.
    if (!late) this.catalog = catalog;
    return catalog;
  }
}
