import type { Tool } from '@modelcontextprotocol/server';
import { compositeSteps, type CompositeConfig } from '../../config/schema/schema.js';
import type { AnyTool } from '../../tool/define.js';
import { toMcpTool } from '../../tool/mcp-shape.js';
import { DEFAULT_SEPARATOR, prefixedName, uniqueNames } from './names.js';
import type { ShapedTool } from './shape.js';
import { pinDefinition } from '../pins/pins.js';

/**
 * The catalog a view publishes: mcpkit's own tools under their own names, then each upstream's
 * shaped tools, prefixed `{server}{separator}` when the view aggregates several servers. Names are
 * fitted and made unique (names.ts), mcpkit's own tools first so they never get renamed. Pure.
 */
export type CatalogEntry =
  | { kind: 'local'; name: string; tool: AnyTool }
  | { kind: 'composite'; name: string; spec: CompositeConfig; tool: Tool }
  | { kind: 'upstream'; name: string; server: string; upstreamName: string; tool: Tool };

/** Who answers an entry, as the audit log names it: the upstream server and its own name for the tool, or mcpkit. */
export function answererOf(entry: CatalogEntry): { server: string; upstreamName: string } {
  return entry.kind === 'upstream' ? { server: entry.server, upstreamName: entry.upstreamName } : { server: 'mcpkit', upstreamName: entry.tool.name };
}

export interface UpstreamTools {
  server: string;
  tools: readonly ShapedTool[];
}

export interface CatalogOptions {
  /** `null`: never prefix. Default `__`. */
  separator?: string | null;
  /** Whether the view prefixes its servers' tools (ResolvedView.prefixed); default: when it has more than one. */
  prefix?: boolean;
}

export function buildCatalog(
  local: readonly AnyTool[],
  upstreams: readonly UpstreamTools[],
  options: CatalogOptions = {},
  composites: readonly { name: string; spec: CompositeConfig }[] = [],
): CatalogEntry[] {
  const separator = options.separator === undefined ? DEFAULT_SEPARATOR : options.separator;
  const prefix = (options.prefix ?? upstreams.length > 1) ? separator : null;
  const wanted = [
    ...local.map((tool) => ({ raw: tool.name, entry: { kind: 'local' as const, tool } })),
    ...composites.map(({ name, spec }) => ({ raw: name, entry: { kind: 'composite' as const, spec, tool: compositeTool(name, spec) } })),
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

function compositeTool(name: string, spec: CompositeConfig): Tool {
  const steps = compositeSteps(spec);
  const how = spec.parallel ? 'in parallel' : 'in order';
  return {
    name,
    description: spec.description ?? `Runs ${steps.map((s) => s.tool).join(', ')} ${how}.`,
    inputSchema: { type: 'object', ...(spec.inputs ?? {}) } as Tool['inputSchema'],
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  };
}

/** What `tools/list` shows for an upstream entry: its shaped tool under the exposed name. */
export function publishedUpstreamTool(entry: Extract<CatalogEntry, { kind: 'upstream' }>): Tool {
  // Only what is pinned is passed on (an unpinned field could carry text past a review); task-augmented
  // execution is not proxied, so the upstream's `execution` hint is not among them.
  return { ...pinDefinition(entry.tool), name: entry.name } as Tool;
}

/** A catalog entry as MCP publishes it. */
export function publish(entry: CatalogEntry): Tool {
  if (entry.kind === 'upstream') return publishedUpstreamTool(entry);
  return entry.kind === 'local' ? toMcpTool(entry.tool) : { ...entry.tool, name: entry.name };
}

/** mcpkit's own tools that declare a `featured` rank, most wanted first (kept direct by exposure auto while they fit). */
export function featuredNames(catalog: ReadonlyMap<string, CatalogEntry>): string[] {
  const ranked: { name: string; rank: number }[] = [];
  for (const entry of catalog.values())
    if (entry.kind === 'local' && entry.tool.featured !== undefined) ranked.push({ name: entry.name, rank: entry.tool.featured });
  return ranked.sort((a, b) => a.rank - b.rank).map((r) => r.name);
}
