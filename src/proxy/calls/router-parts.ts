import type { CallToolResult } from '@modelcontextprotocol/server';
import { compositeSteps, type CompositeConfig } from '../../config/schema.js';
import { accessPath, declarationsOf, type DeclaredTool } from '../../code/declarations.js';
import type { CatalogEntry } from '../catalog/catalog.js';

/** The router's helpers that need none of its state (./call-router.ts). Pure. */

/** The tools a composite calls, as its config names them. */
export function stepRefs(spec: CompositeConfig): string[] {
  return compositeSteps(spec).map((step) => step.tool);
}

/** The entry a composite step names: `server.tool` (its own or published name) or an mcpkit tool. */
export function stepEntry(entries: readonly CatalogEntry[], ref: string): CatalogEntry | undefined {
  const dot = ref.indexOf('.');
  return dot > 0
    ? entries.find(
        (e) => e.kind === 'upstream' && e.server === ref.slice(0, dot) && (e.tool.name === ref.slice(dot + 1) || e.upstreamName === ref.slice(dot + 1)),
      )
    : entries.find((e) => e.kind === 'local' && e.name === ref);
}

/** Code mode's answer with declarations: the .d.ts as text, and what it declares as structured content. */
export function declarationsResult(about: Record<string, unknown>, tools: readonly DeclaredTool[]): CallToolResult {
  const declarations = tools.length ? declarationsOf(tools) : '// No tool matches; try other words.\n';
  return {
    content: [{ type: 'text', text: declarations }],
    structuredContent: { ...about, tools: tools.map((t) => ({ name: t.published, call: accessPath(t.group, t.name) })), declarations },
  };
}
