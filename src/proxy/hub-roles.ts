import type { Tool } from '@modelcontextprotocol/server';
import type { ToolAccess } from '../tool/tool-access.js';
import type { ExposureSummary } from '../tool/view-opener.js';
import type { CodeLimits } from '../code/limits.js';
import type { CallOutcome, FastCall, Found, ProxyCallContext } from './calls/call-router.js';
import type { CatalogEntry } from './catalog/catalog.js';
import type { CodeTools } from './catalog/code-names.js';
import type { HiddenTool } from './catalog/hidden-tools.js';
import type { ViewCatalog } from './catalog/view-catalog.js';

/**
 * The roles a view's hub plays (./hub.ts): what callers depend on instead of the hub. `catalog`
 * says what the view offers and what a name is; `calls` runs a call; `events` (`ServerNotices`,
 * the same as an upstream's) is what its clients are told.
 */

/**
 * How far a name lookup may go:
 * - `listed` (the default): as soon as the server that has the name answered its listing; a name
 *   nobody has waits for the whole catalog;
 * - `known`: only the last complete catalog, starting and waiting for nothing (the audit of a
 *   call already answered; a server column of a listing);
 * - `owner`: starting only the server an earlier listing names (a terminal's call).
 */
export type LookupReach = 'listed' | 'known' | 'owner';

/** What a name is in the catalog: its entry, and the server it belongs to (an upstream tool's). */
export interface NamedEntry {
  entry?: CatalogEntry;
  server?: string;
}

export interface HubCatalog {
  /**
   * The one name lookup. With `judge`, the name judged as a call over MCP is (CallRouter.find):
   * a tool, withheld by its pins, gone since a listing, refused, or unknown with the names like it.
   */
  lookup(name: string, how: { reach?: LookupReach; judge: true }): Promise<Found>;
  lookup(name: string, how?: { reach?: LookupReach }): Promise<NamedEntry>;
  /** What tools/list shows (the catalog, or meta-tools plus the tools kept direct); to a client with rules, only what it may call. */
  list(access?: ToolAccess): Promise<Tool[]>;
  /** How tools/list is made now, and what it costs. */
  exposurePlan(): Promise<ExposureSummary>;
  /** The full catalog, whatever the exposure. */
  catalogTools(): Promise<Tool[]>;
  /** Every tool of the catalog, whatever tools/list shows (the terminal's `call` runs any of them). */
  names(): Promise<string[]>;
  /** The catalog from what is known without starting anything: this process's listings, else earlier ones (`tools --cached`). */
  knownTools(): { tools: { tool: Tool; server?: string }[]; unlisted: string[] };
  /** The servers' tools the view does not serve, each with the rule that hides it (after a listing). */
  hiddenTools(): HiddenTool[];
  /** The tools tool pinning withholds from the view now (after a listing). */
  withheldTools(): ReturnType<ViewCatalog['withheldTools']>;
  /** Why a name the view does not serve is withheld by tool pinning, if it is (after a listing). */
  withheldTool(name: string): ReturnType<ViewCatalog['withheldTool']>;
  /** Code mode's run tool of this view (exposure: code) and its limits; undefined under any other exposure. */
  readonly codeRun: { tool: string; limits: CodeLimits; settings: string } | undefined;
  /** The view's code limits (its `code`, else serve.code, else the defaults), and where they are set. */
  codeLimits(): { limits: CodeLimits; settings: string };
  /** What a code-mode script of this client reaches, as `tools`. */
  codeTools(access?: ToolAccess): Promise<CodeTools>;
}

export interface HubCalls {
  /** One call of a published name, judged as any call of the view is, with what the call brings (./calls/call-context.ts). */
  call(name: string, args: Record<string, unknown> | undefined, context: ProxyCallContext): Promise<CallOutcome>;
  /** The hot path, if it takes this call (CallRouter.fastCall). */
  fastCall(params: { name?: unknown; arguments?: unknown; _meta?: unknown }, access?: ToolAccess): FastCall | undefined;
}
