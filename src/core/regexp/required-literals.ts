import { minimal, requiredOf } from './literal-sets.js';
import { PatternReader, Unsure } from './pattern-reader.js';

/**
 * What every match of a regular expression must contain, read from its source: a set of literal
 * strings, one of which is in any match, and the shortest a match can be. A text that holds none of
 * them (or is shorter) cannot match, so a scanner may skip the regular expression's engine for it
 * (core/regexp/prefiltered-regexp.ts). Derived, never written by hand: a wrong hand-made annotation would
 * silently turn a rule off. Where the reader is unsure what a construct matches (lookaround,
 * backreferences, named groups, Unicode property escapes, the u and v flags, anything it does not
 * know), it gives no prefilter at all and the engine always runs. Pure.
 *
 * Case-insensitive patterns give their literals folded (`foldForLiterals`), to be looked for in
 * the text folded the same way.
 */

export interface RequiredLiterals {
  /** One of these is in every match (folded when the pattern is case-insensitive); absent: no literal is known to be. */
  literals?: readonly string[];
  /** Sets one string of each of which is in every match too (folded alike): a text must hold all. */
  also?: readonly (readonly string[])[];
  /** No match is shorter (in UTF-16 code units, a lower bound). */
  minLength: number;
  ignoreCase: boolean;
}

/**
 * The text as case-insensitive literals are looked for in it: lower case, and the one character
 * RE2 folds onto an ASCII letter that `toLowerCase` leaves alone (U+017F, long s, which RE2's
 * `(?i)s` matches; U+212A, the Kelvin sign, lowers to k already). The characters RE2 folds onto
 * ASCII are checked against RE2 itself in test/unit/required-literals.test.ts. Linear.
 */
export function foldForLiterals(text: string): string {
  const lower = text.toLowerCase();
  return lower.includes('\u017F') ? lower.replaceAll('\u017F', 's') : lower;
}

/** The literals every match of `pattern` contains, and its shortest match; undefined when unsure. */
export function requiredLiterals(pattern: RegExp): RequiredLiterals | undefined {
  if (/[^gimsyd]/.test(pattern.flags)) return undefined;
  const ignoreCase = pattern.flags.includes('i');
  try {
    const reader = new PatternReader(pattern.source, ignoreCase);
    const info = reader.disjunction();
    if (!reader.done()) return undefined;
    const literals = requiredOf(info);
    // `also` beside `literals` only: a pattern matched exactly (no `any`) has its whole set already.
    const also = literals && info.any === literals ? (info.also ?? []).map(minimal) : [];
    return { ...(literals ? { literals: minimal(literals) } : {}), ...(also.length ? { also } : {}), minLength: info.min, ignoreCase };
  } catch (error) {
    if (error instanceof Unsure) return undefined;
    throw error;
  }
}

/** Whether `text` (and `folded`, foldForLiterals of it, for a case-insensitive pattern) may match. Linear in the text. */
export function mayMatch(required: RequiredLiterals, text: string, folded?: string): boolean {
  if (text.length < required.minLength) return false;
  if (!required.literals) return true;
  const subject = required.ignoreCase ? (folded ?? foldForLiterals(text)) : text;
  // includes() on a JS string is linear in practice for these needles: V8 searches with
  // Boyer-Moore-Horspool (or a plain scan for short needles), whose worst case is text times
  // needle length, and the needles are the rules' own short words, never the text's, at most
  // 64 of them in a set (literal-sets.ts MAX_SET) and at most 1 + MAX_ALSO sets: a bounded
  // constant times the text.
  const holds = (set: readonly string[]) => set.some((literal) => subject.includes(literal));
  return holds(required.literals) && (required.also ?? []).every(holds);
}
