import { RE2JS } from 're2js';

/**
 * A regular expression that runs in time linear in its input, whatever the input: RE2's engine
 * (re2js, a port of Go's regexp: no backtracking, so no lookaround and no backreferences; such a
 * pattern is refused when it is made). For text mcpkit does not choose (what an upstream server
 * says of its tools): V8's own engine backtracks, and `(\n[ \t]*){8,}\S` took 82 s on 160k
 * characters there. A boolean test runs on RE2's DFA (about 5 ms per MB); positions are found
 * only where the test says there is a match.
 */
export interface LinearMatch {
  /** UTF-16 offsets, as JavaScript strings count. */
  start: number;
  length: number;
  found: string;
  /** Where each capturing group starts (-1: it took no part). */
  groups: number[];
}

export class LinearRegExp {
  readonly source: string;
  private readonly re: RE2JS;

  /** `pattern`'s flags i, m and s are kept; g and y mean nothing here. Throws for what RE2 cannot run (lookaround, backreferences). */
  constructor(pattern: RegExp) {
    this.source = pattern.source;
    this.re = RE2JS.compile(RE2JS.translateRegExp(new RegExp(withJsSpaces(pattern.source), pattern.flags.replace(/[gyu]/g, ''))));
  }

  test(text: string): boolean {
    return this.re.test(text);
  }

  /** Up to `max` leftmost, non-overlapping, non-empty matches, in order. */
  matches(text: string, max = Number.POSITIVE_INFINITY): LinearMatch[] {
    if (!this.re.test(text)) return [];
    const out: LinearMatch[] = [];
    const matcher = this.re.matcher(text);
    let from = 0;
    while (out.length < max && from <= text.length && matcher.find(from)) {
      const start = matcher.start();
      const end = matcher.end();
      if (end > start) {
        const groups: number[] = [];
        for (let g = 1; g <= matcher.groupCount(); g++) groups.push(matcher.start(g));
        out.push({ start, length: end - start, found: text.slice(start, end), groups });
      }
      from = end > start ? end : end + 1;
    }
    return out;
  }
}

/** What JavaScript's `\s` matches (RE2's is ASCII only: no NBSP, no line separators, which hide text too). */
const JS_SPACES = '\\t\\n\\x0B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF';

/**
 * A pattern's source with `\s` and `\S` spelled out as JavaScript means them, inside character
 * classes too (`[\s\S]`, any character, becomes `[^]`'s RE2 form). Pure.
 */
export function withJsSpaces(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1];
      if (inClass && source.startsWith('\\s\\S', i)) {
        out += '\\s\\S';
        i += 3;
      } else if (next === 's') {
        out += inClass ? JS_SPACES : `[${JS_SPACES}]`;
        i++;
      } else if (next === 'S' && !inClass) {
        out += `[^${JS_SPACES}]`;
        i++;
      } else {
        out += c + (next ?? '');
        i++;
      }
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    out += c;
  }
  return out;
}
