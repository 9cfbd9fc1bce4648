import type { Tool } from '@modelcontextprotocol/server';
import { keepUnderReadOnly } from '../tool/policy.js';
import { compileFilter, explainDecision } from './filter.js';
import type { ServerShaping } from './shape.js';
import { shapeServerTools } from './shape.js';

/** An upstream tool a view does not serve, and the rule that hides it. */
export interface HiddenTool {
  server: string;
  /** The server's own name for it. */
  tool: string;
  why: string;
}

/**
 * Why each of a server's tools that a view does not serve is hidden, by the first rule that hides
 * it, in the order the rules apply: the server's filter, its allow-list and overrides, then the
 * view's filter, allow-list and overrides, then a read-only view. Pure.
 */
export function hiddenTools(server: string, tools: readonly Tool[], own: ServerShaping, view: ServerShaping | undefined, readOnly: boolean): HiddenTool[] {
  const hidden: HiddenTool[] = [];
  const ownFilter = compileFilter(own.filter ?? []);
  const viewFilter = compileFilter(view?.filter ?? []);
  for (const tool of tools) {
    const why = firstReason(tool, own, view, readOnly, ownFilter, viewFilter);
    if (why) hidden.push({ server, tool: tool.name, why });
  }
  return hidden;
}

function firstReason(
  tool: Tool,
  own: ServerShaping,
  view: ServerShaping | undefined,
  readOnly: boolean,
  ownFilter: ReturnType<typeof compileFilter>,
  viewFilter: ReturnType<typeof compileFilter>,
): string | undefined {
  const byOwnFilter = ownFilter(tool.name);
  if (!byOwnFilter.allowed) return `the server's filter (${explainDecision(byOwnFilter)})`;
  if (own.tools && !Object.hasOwn(own.tools, tool.name)) return "not in the server's allow-list (mcp_servers.NAME.tools)";
  if ((own.tools?.[tool.name] ?? own.overrides?.[tool.name])?.enabled === false) return 'enabled: false in the server entry';
  const published = shapeServerTools([tool], own)[0]!.tool;
  if (view) {
    const byViewFilter = viewFilter(published.name);
    if (!byViewFilter.allowed) return `the view's filter for this server (${explainDecision(byViewFilter)})`;
    if (view.tools && !Object.hasOwn(view.tools, published.name)) return `not among the view's tools of this server (published as ${published.name})`;
    if ((view.tools?.[published.name] ?? view.overrides?.[published.name])?.enabled === false) return 'enabled: false in the view';
  }
  if (readOnly && !keepUnderReadOnly(published.annotations)) return 'a read-only view serves only tools that declare readOnlyHint: true';
  return undefined;
}
