import type { CallToolResult } from '@modelcontextprotocol/server';
import { ToolError } from '../../core/errors.js';
import { toCallResult, toErrorResult } from '../../tool/mcp-shape.js';
import type { ToolAccess } from '../../tool/tool-access.js';
import type { CatalogEntry } from '../catalog/catalog.js';
import { declaredNamed } from '../catalog/code-names.js';
import { metaToolNames, metaTools, type MetaMode, type MetaOp } from '../catalog/meta-tools.js';
import { publish } from '../catalog/view-catalog.js';
import type { ArgsGuard } from './args-validator.js';
import type { ProxyCallContext } from './call-context.js';
import type { CallDeclarations } from './call-declarations.js';
import type { CallRouterOptions } from './call-options.js';
import type { CallLookup } from './call-lookup.js';
import { declarationsResult } from './code-declarations.js';
import { withConditions } from './conditions-check.js';
import type { HookedCalls } from './hooked-call.js';

/**
 * The meta-tools of a view whose exposure is not `direct`: search the catalog, describe one tool
 * and call one (under code mode, search and describe answer with TypeScript declarations, and the
 * run tool is the front end's). Each finds only what this client may call.
 */

type MetaCallOptions = Pick<CallRouterOptions, 'catalog' | 'view' | 'declarations'> & { meta: MetaMode };

/** The router's parts a meta-tool works through. */
export interface MetaCallParts {
  lookup: Pick<CallLookup, 'permitted' | 'permittedNames' | 'similar'>;
  declarations: CallDeclarations;
  hooked: Pick<HookedCalls, 'callEntry'>;
  checkArgs: ArgsGuard;
}

export class MetaCalls {
  private readonly names: ReturnType<typeof metaToolNames>;
  private readonly ops: Map<string, MetaOp>;
  /** Input schemas of the meta-tools, by op (they do not depend on the catalog). */
  private readonly schemas: Map<MetaOp, object>;

  constructor(
    private readonly options: MetaCallOptions,
    private readonly parts: MetaCallParts,
  ) {
    this.names = metaToolNames(options.catalog.label, options.meta);
    this.ops = new Map(Object.entries(this.names).map(([op, name]) => [name, op as MetaOp]));
    const published = metaTools(options.catalog.label, { count: 0, contents: [] }, false, options.meta);
    this.schemas = new Map(Object.entries(this.names).map(([op, name]) => [op as MetaOp, published.find((t) => t.name === name)!.inputSchema]));
  }

  /** The meta-tool a name is, if it is one of the view's. */
  opOf(name: string): MetaOp | undefined {
    return this.ops.get(name);
  }

  /** One meta-tool's call; `ran` is told the entry the call meta-tool ran. Failures come back as isError results. */
  async callMeta(op: MetaOp, args: Record<string, unknown>, context: ProxyCallContext, ran: (entry: CatalogEntry) => void): Promise<CallToolResult> {
    const { catalog } = this.options;
    try {
      this.parts.checkArgs(this.names[op]!, this.schemas.get(op)!, args);
      const access = context.access;
      if (this.options.meta === 'code') return await this.codeMeta(op, args, access);
      if (op === 'search') {
        const keep = access?.allows ? await this.parts.lookup.permittedNames(access) : undefined;
        const found = await catalog.search(String(args.query), typeof args.limit === 'number' ? args.limit : 10, keep);
        return toCallResult({ query: args.query, ...found });
      }
      const entry = await this.metaEntry(String(args.name), access);
      if (op === 'describe') return toCallResult(withConditions(publish(entry), this.parts.declarations.rulesOf(entry, access)));
      ran(entry);
      return await this.parts.hooked.callEntry(entry, (args.arguments as Record<string, unknown> | undefined) ?? {}, context);
    } catch (error) {
      return toErrorResult(error);
    }
  }

  /** The entry a meta-tool names, if this client may call it; else NOT_FOUND with the names like it. */
  private async metaEntry(name: string, access: ToolAccess | undefined): Promise<CatalogEntry> {
    const entry = (await this.options.catalog.current()).get(name);
    if (entry && (await this.parts.lookup.permitted(entry, access))) return entry;
    const similar = await this.parts.lookup.similar(name, access);
    throw new ToolError('NOT_FOUND', `No tool named "${name}" in ${this.options.view ? `view "${this.options.view}"` : 'mcpkit'}.`, {
      details: { tool: name, similar },
      hint: similar.length ? `Did you mean ${similar.join(', ')}?` : `Search with ${this.names.search}.`,
    });
  }

  /**
   * Code mode's search and describe: the TypeScript declarations a script calls the tools by. The
   * run itself is the front end's (mcp/pipeline/dispatcher.ts, the terminal's code run): its calls go
   * through the whole chain of a call, which the router is below.
   */
  private async codeMeta(op: MetaOp, args: Record<string, unknown>, access: ToolAccess | undefined): Promise<CallToolResult> {
    const { catalog } = this.options;
    const { declarations } = this.parts;
    if (op === 'search') {
      const keep = access?.allows ? await this.parts.lookup.permittedNames(access) : undefined;
      const found = await catalog.search(String(args.query), typeof args.limit === 'number' ? args.limit : 10, keep);
      const entries = await catalog.current();
      const declared = found.results.map((r) => declarations.declared(entries.get(r.name)!, access));
      return declarationsResult({ query: args.query, total: found.total }, declared, this.options.declarations);
    }
    if (op === 'describe') {
      const tools = await declarations.declaredTools(access);
      const named = declaredNamed(tools, String(args.name));
      const entry = await this.metaEntry(named?.published ?? String(args.name), access);
      return declarationsResult({}, [declarations.declared(entry, access)], this.options.declarations);
    }
    throw new ToolError(
      'FORBIDDEN',
      `${this.names.run} runs where a client's calls go through mcpkit's whole chain: serve (over MCP), or mcpkit code run in a terminal.`,
      {
        hint: 'Run the script with: mcpkit code run FILE',
      },
    );
  }
}
