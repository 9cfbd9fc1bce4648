import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AnyTool } from '../core/tool.js';
import { DEFAULT_SEPARATOR, prefixedName, uniqueNames } from './names.js';
import type { ShapedTool } from './shape.js';

/**
 * The catalog a view publishes: mcpkit's own tools under their own names, then each upstream's
 * shaped tools, prefixed `{server}{separator}` when the view aggregates several servers. Names are
 * fitted and made unique (names.ts), mcpkit's own tools first so they never get renamed. Pure.
 */
export type CatalogEntry =
  | { kind: 'local'; name: string; tool: AnyTool }
  | { kind: 'upstream'; name: string; server: string; upstreamName: string; tool: Tool };

export interface UpstreamTools {
  server: string;
  tools: readonly ShapedTool[];
}

export interface CatalogOptions {
  /** `null`: never prefix. Default `__`, used only when more than one server is in the view. */
  separator?: string | null;
}

export function buildCatalog(local: readonly AnyTool[], upstreams: readonly UpstreamTools[], options: CatalogOptions = {}): CatalogEntry[] {
  const separator = options.separator === undefined ? DEFAULT_SEPARATOR : options.separator;
  const prefix = upstreams.length > 1 ? separator : null;
  const wanted = [
    ...local.map((tool) => ({ raw: tool.name, entry: { kind: 'local' as const, tool } })),
    ...upstreams.flatMap(({ server, tools }) =>
      tools.map((shaped) => ({
        raw: prefixedName(server, shaped.tool.name, prefix),
        entry: { kind: 'upstream' as const, server, upstreamName: shaped.upstreamName, tool: shaped.tool },
      })),
    ),
  ];
  const names = uniqueNames(wanted.map((w) => w.raw));
  return wanted.map((w, i) => ({ ...w.entry, name: names[i]! }) as CatalogEntry);
}

/** What `tools/list` shows for an upstream entry: its shaped tool under the exposed name. */
export function publishedUpstreamTool(entry: Extract<CatalogEntry, { kind: 'upstream' }>): Tool {
  // Task-augmented execution is not proxied, so the upstream's `execution` hint is not passed on.
  const { execution: _execution, ...tool } = entry.tool as Tool & { execution?: unknown };
  return { ...tool, name: entry.name };
}
