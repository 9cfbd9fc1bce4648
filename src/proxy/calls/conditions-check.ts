import type { ToolError } from '../../core/errors.js';
import { conditionFailed, conditionText, firstRefusal, type ConditionRule, type ConditionSet } from '../../conditions/rules.js';
import type { ToolAccess } from '../../tool/tool-access.js';
import type { CatalogEntry } from '../catalog/catalog.js';

/**
 * Where conditions on arguments are enforced: the router's two ways to run a tool (callEntry, and
 * the hot path's forward), which every path reaches with the tool it runs and its arguments as
 * sent: a direct call in either era and transport, a meta-tool's call, each composite step, code
 * mode's inner calls, tasks, the terminal's call in a view. The view's conditions, then the
 * client's; the first that does not hold refuses the call (CONDITION_FAILED).
 */

const NONE: readonly ConditionRule[] = Object.freeze([]);

/** The conditions of a view and its name, as the router is given them. */
export interface ViewConditions {
  set?: ConditionSet | undefined;
  view?: string | undefined;
}

/** The rules that apply to a call of `tool` by `access`: one map look-up each when none do. */
export function rulesFor(view: ConditionSet | undefined, access: ToolAccess | undefined, tool: string): readonly ConditionRule[] {
  const own = view?.applying(tool) ?? NONE;
  const client = access?.conditions?.applying(tool) ?? NONE;
  if (client.length === 0) return own;
  return own.length === 0 ? client : [...own, ...client];
}

/** Why the call may not run, or undefined when every condition that applies holds. */
export function conditionRefusal(conditions: ViewConditions, access: ToolAccess | undefined, entry: CatalogEntry, args: unknown): ToolError | undefined {
  const rules = rulesFor(conditions.set, access, entry.name);
  if (rules.length === 0) return undefined;
  const refusal = firstRefusal(rules, {
    // Not an object: the expression sees no map, errs, and refuses.
    args: args as Record<string, unknown>,
    tool: entry.name,
    server: entry.kind === 'upstream' ? entry.server : 'mcpkit',
    view: conditions.view ?? 'default',
    client: access?.client ?? '',
    claims: access?.claims ?? {},
  });
  return refusal && conditionFailed(entry.name, refusal);
}

/** What the describe tool and code mode's declarations add to a tool's description: the conditions that apply to this caller. */
export function describedConditions(rules: readonly ConditionRule[]): string {
  if (rules.length === 0) return '';
  const lines = rules.map((rule) => `- ${conditionText(rule)}`);
  return `\n\nConditions (a call that does not meet them is refused with CONDITION_FAILED):\n${lines.join('\n')}`;
}

/** A tool as published, or as code mode declares it, with the conditions that apply to this caller added to its description. */
export function withConditions<T extends { description?: string | undefined }>(tool: T, rules: readonly ConditionRule[]): T {
  const said = describedConditions(rules);
  return said ? { ...tool, description: `${tool.description ?? ''}${said}` } : tool;
}
