import { ToolError } from '../../core/errors.js';
import { boundedRegExp, LONG_LINE, longLineTest } from './bounded.js';
import { literalParts, regexParts, type PartsOf } from './match-parts.js';
import { invertedMatcher, literalMatcher, regexMatcher, requiredLiteral, type LineMatcher } from './line-matcher.js';
import { requiredTrigrams } from './trigrams.js';
import { regexGramGroups } from './regex-grams.js';

/**
 * A search query as the caller gave it: plain data, from which the CLI and `serve` build the
 * very same matcher.
 */
export interface SearchQuery {
  query: string;
  regex: boolean;
  ignoreCase: boolean;
  /** Further patterns (rg -e): a line that matches any of them matches. */
  more?: readonly string[];
  /** Only matches with a non-word character or the line's edge on each side (rg -w). */
  word?: boolean;
  /** The lines that do not match (rg -v). */
  invert?: boolean;
}

export interface CompiledQuery {
  matcher: LineMatcher;
  /** Trigrams every matching file contains (trigrams.ts), when the query has a literal to take them from. */
  trigrams?: number[];
  /** Else, for a regular expression: groups of trigrams of which every matching file holds one each (regex-grams.ts). */
  gramGroups?: number[][];
  /** A regular expression that only a backtracking engine runs: its time has no bound (bounded.ts). */
  backtracks?: boolean;
  /** What the query (not inverted) matches in one line, for rg -o (match-parts.ts). */
  parts: PartsOf;
}

/** ripgrep's word characters (Unicode's \w, as rg -w has them): what -w wants on neither side of a match. */
const WORD_CHAR = '[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}]';

const escapeLiteral = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The matcher for a query; QUERY_INVALID for a regular expression that does not compile. */
export function compileQuery(q: SearchQuery): CompiledQuery {
  const compiled = compileMatching(q);
  if (!q.invert) return compiled;
  // Nearly every file has a line without the query: no trigram rules a file out.
  return { matcher: invertedMatcher(compiled.matcher), parts: compiled.parts, ...(compiled.backtracks ? { backtracks: true } : {}) };
}

function compileMatching(q: SearchQuery): CompiledQuery {
  const patterns = [q.query, ...(q.more ?? [])];
  if (patterns.length === 1 && !q.regex && !q.ignoreCase && !q.word) {
    const needle = Buffer.from(q.query);
    return { matcher: literalMatcher(needle), trigrams: requiredTrigrams(needle, false), parts: literalParts(q.query) };
  }
  const flags = q.ignoreCase ? 'iu' : 'u';
  if (q.regex) for (const pattern of patterns) checkCompiles(pattern, flags);
  const sources = patterns.map((p) => (q.regex ? p : escapeLiteral(p)));
  const either = sources.length === 1 ? sources[0]! : sources.map((s) => `(?:${s})`).join('|');
  const source = q.word ? `(?<!${WORD_CHAR})(?:${either})(?!${WORD_CHAR})` : either;
  const { re, backtracks } = boundedRegExp(source, flags);
  const literal = q.ignoreCase ? undefined : requiredLiteral(source);
  const longLine = { chars: LONG_LINE, test: longLineTest(re) };
  const asciiLiteral = !q.regex && !q.word && patterns.length === 1 ? { asciiLiteral: q.query } : {};
  // Only an expression the linear engine runs: it has no lookaround or backreference, so it sees
  // only its line, and a run that backtracks too much moves to that engine. One it cannot run
  // (-i, \p{..}) would backtrack over a whole segment, where [^x], \s or \P{..} cross newlines:
  // exponential in a line becomes exponential in 16 K characters (`(?:[^Z]+)+Z` with -i).
  const whole = new RegExp(re.source, `${re.flags}m`);
  const wholeText = literal || backtracks ? {} : { wholeText: (text: string) => whole.test(text) };
  const matcher = regexMatcher(re, literal ? Buffer.from(literal) : undefined, { ...asciiLiteral, longLine, ...wholeText });
  // Literals have nothing to backtrack over, and the word edges around them are one character
  // each: only a caller's own expression may backtrack without bound (V8's linear engine refuses
  // lookaround and the i flag, not what they cost here).
  const bound = { parts: regexParts(re), ...(backtracks && q.regex ? { backtracks } : {}) };
  if (literal) return { matcher, trigrams: requiredTrigrams(Buffer.from(literal), false), ...bound };
  if (!q.regex && patterns.length === 1) return { matcher, trigrams: requiredTrigrams(Buffer.from(q.query), true), ...bound };
  // What the expression requires, from the pattern itself: -w's edges around it require nothing more.
  const gramGroups = patterns.length === 1 && q.regex ? regexGramGroups(either) : undefined;
  return { matcher, ...(gramGroups ? { gramGroups } : {}), ...bound };
}

function checkCompiles(pattern: string, flags: string): void {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    // V8's own message already begins "Invalid regular expression: /a(/u: ..."; it is said once.
    const reason = (error as Error).message.replace(/^Invalid regular expression: /, '');
    throw new ToolError('QUERY_INVALID', `Invalid regular expression: ${reason}`, { details: { query: pattern } });
  }
}
