import { ToolError } from '../../core/errors.js';
import { ConditionSet, type ConditionSpec } from '../../conditions/rules.js';
import type { CatalogEntry } from '../../proxy/catalog/catalog.js';
import { conditionRefusal, rulesFor } from '../../proxy/calls/conditions-check.js';

/** What `clients --who NAME --tool T --args JSON` needs to try the conditions as serve would. */
export interface ConditionTrial {
  /** The route's view (absent: /mcp, the default view, which has no conditions). */
  view?: string | undefined;
  viewConditions?: Readonly<Record<string, ConditionSpec>> | undefined;
  /** A named client: its conditions and claims; absent for an unnamed one. */
  client?: { name: string; conditions?: Readonly<Record<string, ConditionSpec>> | undefined; claims?: Readonly<Record<string, unknown>> | undefined };
  entry: CatalogEntry;
  args: unknown;
}

/**
 * Whether the conditions on arguments let the call through, and which decided: the same
 * functions serve runs (proxy/calls/conditions-check.ts), so the dry run and serve agree.
 */
export function conditionVerdict(trial: ConditionTrial): { allowed: boolean; because: string } {
  const set = ConditionSet.compile(`tool_views.${trial.view}.conditions`, trial.viewConditions);
  const own = trial.client && ConditionSet.compile(`serve.clients.${trial.client.name}.conditions`, trial.client.conditions);
  const access = trial.client ? { client: trial.client.name, ...(own ? { conditions: own, claims: trial.client.claims ?? {} } : {}) } : undefined;
  const refused = conditionRefusal({ set, view: trial.view }, access, trial.entry, trial.args);
  // The words serve's refusal uses, from "the condition ...": which decided, and why.
  if (refused) return { allowed: false, because: refused.message.replace(/^The call of .*? was refused by /, '') };
  const rules = rulesFor(set, access, trial.entry.name);
  if (rules.length === 0) return { allowed: true, because: 'no condition names it' };
  return { allowed: true, because: `its conditions hold: ${rules.map((r) => `"${r.key}" of ${r.where}`).join(', ')}` };
}

/** --args as given: a JSON object, else INVALID_INPUT. */
export function parseTrialArgs(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ToolError('INVALID_INPUT', `--args is not JSON: ${(error as Error).message}`, {
      hint: `Give the arguments as a JSON object, e.g. --args '{"path":"/srv/docs/a.md"}'.`,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ToolError('INVALID_INPUT', '--args must be a JSON object (the arguments by name).', { hint: `e.g. --args '{"path":"/srv/docs/a.md"}'` });
  return value as Record<string, unknown>;
}
