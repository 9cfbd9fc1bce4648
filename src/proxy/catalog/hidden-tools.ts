import type { Tool } from '@modelcontextprotocol/server';
import { keepUnderReadOnly } from '../../tool/policy.js';
import { compileFilter, explainDecision, type ToolFilter } from './filter.js';
import { shapeTool, type ServerShaping } from './shape.js';

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
  const ownFilter = compileFilter(own.filter ?? []);
  const viewFilter = compileFilter(view?.filter ?? []);
  const hidden: HiddenTool[] = [];
  for (const tool of tools) {
    const why = firstReason(tool, own, ownFilter, view, viewFilter, readOnly);
    if (why) hidden.push({ server, tool: tool.name, why });
  }
  return hidden;
}

/** The same verdicts the catalog is made from (shape.ts), in words. */
function firstReason(
  tool: Tool,
  own: ServerShaping,
  ownFilter: ToolFilter,
  view: ServerShaping | undefined,
  viewFilter: ToolFilter,
  readOnly: boolean,
): string | undefined {
  const byServer = shapeTool(tool, own, ownFilter);
  if (!('published' in byServer)) {
    if (byServer.dropped === 'filter') return `the server's filter (${explainDecision(byServer.decision)})`;
    return byServer.dropped === 'allow-list' ? "not in the server's allow-list (mcp_servers.NAME.tools)" : 'enabled: false in the server entry';
  }
  const published = byServer.published;
  const byView = view ? shapeTool(published, view, viewFilter) : { published };
  if (!('published' in byView)) {
    if (byView.dropped === 'filter') return `the view's filter for this server (${explainDecision(byView.decision)})`;
    return byView.dropped === 'allow-list' ? `not among the view's tools of this server (add "${published.name}" to serve it)` : 'enabled: false in the view';
  }
  if (readOnly && !keepUnderReadOnly(byView.published.annotations)) return 'a read-only view serves only tools that declare readOnlyHint: true';
  return undefined;
}
