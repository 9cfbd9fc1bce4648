import { ToolError } from '../../core/errors.js';

/**
 * `--condition 'GLOB=EXPR'` (repeatable) as serve.clients.NAME.conditions: split at the first "=",
 * so the expression keeps its own `==`. The expression itself is compiled by the config check
 * when the edit is written (a bad one leaves the file as it was). Pure.
 */
export function conditionFlags(values: readonly string[] | undefined): Record<string, string> | undefined {
  if (!values?.length) return undefined;
  const out: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    const glob = at > 0 ? value.slice(0, at).trim() : '';
    const when = at > 0 ? value.slice(at + 1).trim() : '';
    if (!glob || !when)
      throw new ToolError('INVALID_INPUT', `--condition "${value}" is not GLOB=EXPR.`, {
        hint: `e.g. --condition 'github__create_issue=args.repo in ["acme/app"]' (a glob over the published tool name, "=", a CEL expression).`,
      });
    if (Object.hasOwn(out, glob)) throw new ToolError('INVALID_INPUT', `--condition names "${glob}" twice: write one expression for it (join them with &&).`);
    out[glob] = when;
  }
  return out;
}
