import { LinearRegExp, type LinearMatch } from './linear-regexp.js';
import { mayMatch, requiredLiterals, type RequiredLiterals } from './required-literals.js';

/**
 * A LinearRegExp that first asks whether the text can match at all: a text without any of the
 * literals every match contains (core/regexp/required-literals.ts), or shorter than any match, gets no
 * match without RE2 running; RE2's program is compiled the first time a text passes. Same
 * matches as the LinearRegExp of the same pattern, in linear time still. A pattern whose literals
 * are unknown runs RE2 on every text.
 */
export class PrefilteredRegExp {
  readonly source: string;
  /** Undefined: no prefilter is known for the pattern; every text goes to RE2. */
  readonly required: RequiredLiterals | undefined;
  private engine: LinearRegExp | undefined;

  /**
   * `prefilter: false` runs RE2 on every text: the same matches, to compare against. `known` is
   * requiredLiterals(pattern) as computed before (at build time), null where it gave none: reading
   * the pattern's source for its literals costs about a millisecond a pattern at start.
   */
  constructor(
    private readonly pattern: RegExp,
    options: { prefilter?: boolean; known?: RequiredLiterals | null } = {},
  ) {
    this.source = pattern.source;
    if (options.prefilter === false) this.required = undefined;
    else this.required = options.known === undefined ? requiredLiterals(pattern) : (options.known ?? undefined);
  }

  /** Whether RE2's program was made: only once a text got past the prefilter. */
  get compiled(): boolean {
    return this.engine !== undefined;
  }

  /** False only when the text cannot match; `folded` is foldForLiterals(text), when the caller has it. */
  mayMatch(text: string, folded?: string): boolean {
    return this.required === undefined || mayMatch(this.required, text, folded);
  }

  test(text: string, folded?: string): boolean {
    return this.mayMatch(text, folded) && this.linear().test(text);
  }

  /** As LinearRegExp.matches: up to `max` leftmost, non-overlapping, non-empty matches, in order. */
  matches(text: string, max = Number.POSITIVE_INFINITY, folded?: string): LinearMatch[] {
    return this.mayMatch(text, folded) ? this.linear().matches(text, max) : [];
  }

  private linear(): LinearRegExp {
    return (this.engine ??= new LinearRegExp(this.pattern));
  }
}
