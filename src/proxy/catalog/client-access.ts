import { compileFilter, type FilterRule } from './filter.js';

/**
 * What one named client of `serve` (serve.clients) may call: its `tools` rules, rsync-style as in
 * `filter` (first match wins; with an include rule, what no rule matches is refused), over the
 * names the view publishes, then `read_only` (only tools that declare readOnlyHint, or mcpkit's
 * own tools that enforce read-only themselves). Pure; the front end applies it to every listing
 * and every call, the meta-tools and composite steps included.
 */

/** A rule as the config writes it: "+ GLOB" / "- GLOB", or { include } / { exclude } as in filters. */
export type ToolRuleText = string | FilterRule;

/** The rule a text stands for, or a message saying what is wrong with it. */
export function parseToolRule(rule: ToolRuleText): FilterRule | { problem: string } {
  if (typeof rule !== 'string') return rule;
  const match = /^\s*([+-])\s+(\S(?:.*\S)?)\s*$/s.exec(rule);
  if (!match) return { problem: `"${rule}" is not a rule: write "+ GLOB" to allow or "- GLOB" to refuse (e.g. "+ github__*", "- *")` };
  return match[1] === '+' ? { include: match[2]! } : { exclude: match[2]! };
}

/** A rule as "+ GLOB" / "- GLOB", however the config wrote it. */
export function ruleText(rule: ToolRuleText): string {
  return typeof rule === 'string' ? rule.trim() : 'include' in rule ? `+ ${rule.include}` : `- ${rule.exclude}`;
}

export interface ClientRulesSpec {
  tools?: readonly ToolRuleText[];
  read_only?: boolean;
}

/** What a rule check sees of a tool: its published name and whether it may only read. */
export interface ToolFacts {
  name: string;
  /** readOnlyHint: true (or an mcpkit tool that refuses to write under read-only). */
  readOnly: boolean;
}

export interface AccessDecision {
  allowed: boolean;
  /** Which rule decided, in words (`mcpkit clients --who --tool` prints it). */
  because: string;
}

export type ToolRules = (tool: ToolFacts) => AccessDecision;

/** The rules of a client as one function; throws on a rule that cannot be parsed (the schema refuses those first). */
export function compileClientRules(spec: ClientRulesSpec): ToolRules {
  const parsed = (spec.tools ?? []).map(parseToolRule);
  const bad = parsed.find((r): r is { problem: string } => 'problem' in r);
  if (bad) throw new Error(bad.problem);
  const rules = parsed as FilterRule[];
  const filter = compileFilter(rules);
  const texts = (spec.tools ?? []).map(ruleText);
  return (tool) => {
    const d = filter(tool.name);
    if (!d.allowed) {
      const because =
        d.reason === 'rule' ? `rule ${d.rule!.index + 1} "${texts[d.rule!.index]}" refuses it` : 'no rule allows it (the rules list what is allowed)';
      return { allowed: false, because };
    }
    if (spec.read_only && !tool.readOnly) return { allowed: false, because: 'read_only: it does not declare readOnlyHint' };
    const because = d.reason === 'rule' ? `rule ${d.rule!.index + 1} "${texts[d.rule!.index]}" allows it` : 'no rule refuses it';
    return { allowed: true, because: spec.read_only ? `${because}, and it only reads` : because };
  };
}

/** Whether rules or limits apply at all (a client with neither costs the calls nothing). */
export function restricts(spec: ClientRulesSpec): boolean {
  return (spec.tools?.length ?? 0) > 0 || spec.read_only === true;
}
