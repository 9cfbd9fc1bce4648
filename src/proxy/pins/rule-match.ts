import { PrefilteredRegExp } from '../../core/regexp/prefiltered-regexp.js';
import { foldForLiterals } from '../../core/regexp/required-literals.js';
import type { ScanRule } from './rule-shape.js';
import { builtPrefilter } from './rule-prefilters.js';

/**
 * A scan rule's patterns, masks and parameter names as they run on a text: on RE2's linear
 * engine (core/regexp/linear-regexp.ts), an upstream's text never being matched by a backtracking engine,
 * behind a prefilter derived from each pattern (core/regexp/required-literals.ts): a text that holds none
 * of the literals every match of a pattern contains skips RE2 (those literals read from the patterns
 * at build time: ./rule-prefilters.ts), and a pattern's RE2 program is
 * compiled only when a text first gets past its prefilter. Serve scans what it pins on first use;
 * most rules never need RE2 on a plain server's tools.
 */
export interface RuleMatchers {
  patterns: PrefilteredRegExp[];
  masks: { re: PrefilteredRegExp; group: number }[];
  names?: PrefilteredRegExp;
}

/** What scanTools may be told: `prefilter: false` runs RE2 on every text (to compare, in tests). */
export interface MatchOptions {
  prefilter?: boolean;
}

/** A match of a rule's patterns: where in the text, and the text found there. */
export interface RuleMatch {
  start: number;
  length: number;
  found: string;
}

/** Made once per rule and way of matching (the rules are constants). */
const compiled = new WeakMap<ScanRule, { prefiltered?: RuleMatchers; plain?: RuleMatchers }>();

export function ruleMatchers(rule: ScanRule, options: MatchOptions = {}): RuleMatchers {
  const prefilter = options.prefilter ?? true;
  const made = compiled.get(rule) ?? {};
  compiled.set(rule, made);
  const way = prefilter ? 'prefiltered' : 'plain';
  const make = (pattern: RegExp) => new PrefilteredRegExp(pattern, { prefilter, known: builtPrefilter(pattern) });
  return (made[way] ??= {
    patterns: (rule.patterns ?? []).map(make),
    masks: (rule.masks ?? []).map((m) => ({ re: make(m.pattern), group: m.group })),
    ...(rule.names ? { names: make(rule.names) } : {}),
  });
}

/** The text with each mask's group blanked, the same length (so offsets hold). */
function masked(masks: RuleMatchers['masks'], text: string): string {
  let out = text;
  for (const { re, group } of masks) {
    for (const m of re.matches(out, Number.POSITIVE_INFINITY, foldForLiterals(out))) {
      const at = m.groups[group - 1] ?? -1;
      if (at < 0) continue;
      const length = m.start + m.length - at;
      out = out.slice(0, at) + 'x'.repeat(length) + out.slice(at + length);
    }
  }
  return out;
}

/** Up to `max` matches of a rule's patterns in a text (masks applied first), in the order they stand. */
export function matchesOf(matchers: RuleMatchers, text: string, max: number): RuleMatch[] {
  const { patterns, masks } = matchers;
  const subject = masks.length ? masked(masks, text) : text;
  const folded = foldForLiterals(subject);
  const out: RuleMatch[] = [];
  for (const pattern of patterns) {
    for (const m of pattern.matches(subject, max - out.length, folded))
      out.push({ start: m.start, length: m.length, found: text.slice(m.start, m.start + m.length) });
    if (out.length >= max) break;
  }
  return out.sort((a, b) => a.start - b.start);
}
