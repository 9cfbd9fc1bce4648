import { requiredLiterals, type RequiredLiterals } from '../../core/regexp/required-literals.js';
import type { ScanRule } from './rule-shape.js';

/** Every regular expression of a rule: its patterns, its masks' and its parameter-name list. Pure. */
export function patternsOf(rule: ScanRule): RegExp[] {
  return [...(rule.patterns ?? []), ...(rule.masks ?? []).map((m) => m.pattern), ...(rule.names ? [rule.names] : [])];
}

/** Each pattern's prefilter computed now, by `String(pattern)`: what rule-prefilters.json holds (null: none). Pure. */
export function rulePrefilters(rules: readonly ScanRule[]): Record<string, RequiredLiterals | null> {
  const out: Record<string, RequiredLiterals | null> = {};
  for (const pattern of rules.flatMap(patternsOf)) out[String(pattern)] = requiredLiterals(pattern) ?? null;
  return out;
}
