/**
 * rsync-style tool filtering: rules are evaluated in the order given and the
 * first rule whose glob matches decides. With no rules everything passes. When no rule matches,
 * the name is excluded if any include rule exists (whitelist mode) and allowed otherwise. This is
 * what mcp-filter does, whose users these rules come from. Pure.
 */
export type FilterRule = { include: string } | { exclude: string };

export interface FilterDecision {
  allowed: boolean;
  /** The rule that decided, or how the default was reached. */
  reason: 'rule' | 'no-rules' | 'no-match-whitelist' | 'no-match-allow';
  rule?: { index: number; action: 'include' | 'exclude'; pattern: string };
}

export type ToolFilter = (name: string) => FilterDecision;

/**
 * Glob over a tool name (no path separators): `*` any run of characters, `?` one character,
 * `[abc]`/`[a-z]`/`[!a]` a class, `{a,b}` alternatives, `\x` a literal x. Case-sensitive.
 */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\' && i + 1 < glob.length) {
      out += escape(glob[++i]!);
    } else if (c === '*') {
      out += '.*';
    } else if (c === '?') {
      out += '.';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^' : ''}${body.replace(/\\/g, '\\\\').replace(/\]/g, '\\]')}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) {
      out += '|';
    } else {
      out += escape(c);
    }
  }
  if (braces > 0) throw new Error(`Unbalanced "{" in pattern "${glob}".`);
  return new RegExp(`^${out}$`, 's');
}

function escape(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

export function ruleAction(rule: FilterRule): { action: 'include' | 'exclude'; pattern: string } {
  return 'include' in rule ? { action: 'include', pattern: rule.include } : { action: 'exclude', pattern: rule.exclude };
}

export function compileFilter(rules: readonly FilterRule[]): ToolFilter {
  const compiled = rules.map((rule, index) => ({ index, ...ruleAction(rule), re: globToRegExp(ruleAction(rule).pattern) }));
  const whitelist = compiled.some((r) => r.action === 'include');
  return (name) => {
    if (compiled.length === 0) return { allowed: true, reason: 'no-rules' };
    for (const r of compiled) {
      if (r.re.test(name)) return { allowed: r.action === 'include', reason: 'rule', rule: { index: r.index, action: r.action, pattern: r.pattern } };
    }
    return whitelist ? { allowed: false, reason: 'no-match-whitelist' } : { allowed: true, reason: 'no-match-allow' };
  };
}

/** One-line account of a decision, for `filter test`. */
export function explainDecision(decision: FilterDecision): string {
  switch (decision.reason) {
    case 'rule':
      return `rule ${decision.rule!.index + 1}: --${decision.rule!.action} "${decision.rule!.pattern}"`;
    case 'no-rules':
      return 'no rules: everything passes';
    case 'no-match-whitelist':
      return 'no rule matched; include rules exist, so it is excluded';
    case 'no-match-allow':
      return 'no rule matched; only exclude rules exist, so it passes';
  }
}
