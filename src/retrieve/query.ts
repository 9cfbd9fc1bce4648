import { ToolError } from '../core/errors.js';
import { boundedRegExp, LONG_LINE, longLineTest } from './bounded.js';
import { literalMatcher, regexMatcher, requiredLiteral, type LineMatcher } from './line-matcher.js';
import { requiredTrigrams } from './trigrams.js';

/**
 * A search query as the caller gave it: plain data, from which the CLI and `serve` build the
 * very same matcher.
 */
export interface SearchQuery {
  query: string;
  regex: boolean;
  ignoreCase: boolean;
}

export interface CompiledQuery {
  matcher: LineMatcher;
  /** Trigrams every matching file contains (trigrams.ts), when the query has a literal to take them from. */
  trigrams?: number[];
  /** A regular expression that only a backtracking engine runs: its time has no bound (bounded.ts). */
  backtracks?: boolean;
}

/** The matcher for a query; QUERY_INVALID for a regular expression that does not compile. */
export function compileQuery(q: SearchQuery): CompiledQuery {
  if (!q.regex && !q.ignoreCase) {
    const needle = Buffer.from(q.query);
    return { matcher: literalMatcher(needle), trigrams: requiredTrigrams(needle, false) };
  }
  const source = q.regex ? q.query : q.query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const flags = q.ignoreCase ? 'iu' : 'u';
  try {
    new RegExp(source, flags);
  } catch (error) {
    // V8's own message already begins "Invalid regular expression: /a(/u: ..."; it is said once.
    const reason = (error as Error).message.replace(/^Invalid regular expression: /, '');
    throw new ToolError('QUERY_INVALID', `Invalid regular expression: ${reason}`, { details: { query: q.query } });
  }
  const { re, backtracks } = boundedRegExp(source, flags);
  const literal = q.ignoreCase ? undefined : requiredLiteral(q.query);
  const longLine = { chars: LONG_LINE, test: longLineTest(re) };
  const matcher = regexMatcher(re, literal ? Buffer.from(literal) : undefined, q.regex ? { longLine } : { asciiLiteral: q.query, longLine });
  // A literal has nothing to backtrack over (V8's linear engine refuses it only for the i flag).
  const bound = backtracks && q.regex ? { backtracks } : {};
  if (literal) return { matcher, trigrams: requiredTrigrams(Buffer.from(literal), false), ...bound };
  if (!q.regex) return { matcher, trigrams: requiredTrigrams(Buffer.from(q.query), true), ...bound };
  return { matcher, ...bound };
}
