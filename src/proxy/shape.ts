import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { compileFilter, type FilterRule } from './filter.js';

/**
 * Server-level shaping (seed 001 "Tool Registration on Upstream Servers"): ordered filter rules,
 * then, when `tools:` is present, an allow-list whose entries may rename a tool, replace its
 * description (`{original}` stands for the upstream text) or disable it. Pure.
 */
export interface ToolOverride {
  description?: string;
  name?: string;
  enabled?: boolean;
}

export interface ServerShaping {
  tools?: Record<string, ToolOverride | null>;
  filter?: readonly FilterRule[];
}

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
  const filter = compileFilter(shaping.filter ?? []);
  const allow = shaping.tools;
  const shaped: ShapedTool[] = [];
  for (const tool of tools) {
    if (!filter(tool.name).allowed) continue;
    let published: Tool = tool;
    if (allow) {
      if (!Object.hasOwn(allow, tool.name)) continue;
      const override = allow[tool.name] ?? {};
      if (override.enabled === false) continue;
      published = {
        ...tool,
        ...(override.name ? { name: override.name } : {}),
        ...(override.description !== undefined ? { description: applyDescription(override.description, tool.description) } : {}),
      };
    }
    shaped.push({ upstreamName: tool.name, tool: published });
  }
  return shaped;
}
