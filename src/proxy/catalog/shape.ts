import type { Tool } from '@modelcontextprotocol/server';
import type { ServerShaping } from '../../config/schema/schema.js';
import { compileFilter, type FilterDecision, type ToolFilter } from './filter.js';

/**
 * Server-level shaping: ordered filter rules,
 * then, when `tools:` is present, an allow-list whose entries may rename a tool, replace its
 * description (`{original}` stands for the upstream text) or disable it; `overrides:` does the
 * same without an allow-list (an allow-list entry's own fields win over it). Pure.
 */
export type { ServerShaping, ToolOverride } from '../../config/schema/schema.js';

export interface ShapedTool {
  /** The name the upstream knows; calls are forwarded with it. */
  upstreamName: string;
  /** The tool as published, before any view prefix. */
  tool: Tool;
}

export function applyDescription(template: string, original: string | undefined): string {
  return template.replace(/\{original\}/g, original ?? '');
}

export function shapeServerTools(tools: readonly Tool[], shaping: ServerShaping): ShapedTool[] {
  return reshapeTools(
    tools.map((tool) => ({ upstreamName: tool.name, tool })),
    shaping,
  );
}

/**
 * Applies a second layer of shaping (a view's selection of a server's tools) to tools already
 * shaped by the server's own rules. Rules match the names the server publishes; calls still go
 * to the original upstream name.
 */
export function reshapeTools(items: readonly ShapedTool[], shaping: ServerShaping): ShapedTool[] {
  const filter = compileFilter(shaping.filter ?? []);
  const shaped: ShapedTool[] = [];
  for (const item of items) {
    const verdict = shapeTool(item.tool, shaping, filter);
    if ('published' in verdict) shaped.push({ upstreamName: item.upstreamName, tool: verdict.published });
  }
  return shaped;
}

/** What one layer of shaping does to one tool: publishes it (renamed, described), or drops it, and by which rule. */
export type ShapeVerdict = { published: Tool } | { dropped: 'filter'; decision: FilterDecision } | { dropped: 'allow-list' } | { dropped: 'disabled' };

/** The one place the rules are applied, in order: filter, allow-list, overrides (`filter` is compiled from `shaping.filter`). Pure. */
export function shapeTool(tool: Tool, shaping: ServerShaping, filter: ToolFilter): ShapeVerdict {
  const decision = filter(tool.name);
  if (!decision.allowed) return { dropped: 'filter', decision };
  const allow = shaping.tools;
  if (allow && !Object.hasOwn(allow, tool.name)) return { dropped: 'allow-list' };
  const override = { ...(shaping.overrides?.[tool.name] ?? {}), ...(allow?.[tool.name] ?? {}) };
  if (override.enabled === false) return { dropped: 'disabled' };
  if (!override.name && override.description === undefined) return { published: tool };
  return {
    published: {
      ...tool,
      ...(override.name ? { name: override.name } : {}),
      ...(override.description !== undefined ? { description: applyDescription(override.description, tool.description) } : {}),
    },
  };
}
