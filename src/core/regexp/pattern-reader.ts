import { alternatives, MAX_CLASS, repeat, sequence, SOME_CHARACTER, ZERO_WIDTH, type Info } from './literal-sets.js';

/**
 * Reads a regular expression's source (JavaScript's syntax, without the u flag) into what its
 * matches contain (./literal-sets.ts), for ./required-literals.ts. Throws Unsure for any construct
 * it does not know the matches of. Pure.
 */

/** What the reader does not know the matches of: the pattern gets no prefilter. */
export class Unsure extends Error {}

/** Escapes that stand for one known character. */
const CONTROL: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v' };
/** What a pattern's characters outside a class may mean other than themselves. */
const SPECIAL = '\\^$.*+?()[]{}|';
const QUANTIFIER_START = '*+?{';

/** A printable ASCII character of a pattern that stands for itself. */
function plain(c: string | undefined): boolean {
  return c !== undefined && c >= ' ' && c <= '~' && !SPECIAL.includes(c);
}
/** An identity escape: a backslash before ASCII punctuation stands for that character. */
const PUNCTUATION = /^[\x20-\x2F\x3A-\x40\x5B-\x60\x7B-\x7E]$/;

/** Reads a pattern's source (JavaScript's syntax, without the u flag) into what its matches contain. */
export class PatternReader {
  private at = 0;
  constructor(
    private readonly source: string,
    private readonly ignoreCase: boolean,
  ) {}

  done(): boolean {
    return this.at === this.source.length;
  }

  disjunction(): Info {
    const parts = [this.alternative()];
    while (this.source[this.at] === '|') {
      this.at++;
      parts.push(this.alternative());
    }
    return alternatives(parts);
  }

  private alternative(): Info {
    const parts: Info[] = [];
    while (!this.done() && this.source[this.at] !== '|' && this.source[this.at] !== ')') parts.push(this.plainRun() ?? this.term());
    return sequence(parts);
  }

  /** Plain ASCII characters in a row, none quantified, as one part (a shortcut: each alone gives the same). */
  private plainRun(): Info | undefined {
    let end = this.at;
    while (plain(this.source[end]) && !QUANTIFIER_START.includes(this.source[end + 1] ?? ' ')) end++;
    if (end === this.at) return undefined;
    const run = this.source.slice(this.at, end);
    this.at = end;
    return { exact: [this.ignoreCase ? run.toLowerCase() : run], min: run.length };
  }

  private term(): Info {
    const atom = this.atom();
    const quantifier = this.quantifier();
    return quantifier ? repeat(atom, quantifier.lo, quantifier.hi) : atom;
  }

  private quantifier(): { lo: number; hi: number } | undefined {
    const c = this.source[this.at];
    let q: { lo: number; hi: number } | undefined;
    if (c === '*') q = { lo: 0, hi: Infinity };
    else if (c === '+') q = { lo: 1, hi: Infinity };
    else if (c === '?') q = { lo: 0, hi: 1 };
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (!m) throw new Unsure();
      const lo = Number(m[1]);
      const hi = m[2] === undefined ? lo : m[3] ? Number(m[3]) : Infinity;
      if (hi < lo) throw new Unsure();
      this.at += m[0].length - 1;
      q = { lo, hi };
    }
    if (!q) return undefined;
    this.at++;
    // Lazy or greedy, a match is a string of the language all the same.
    if (this.source[this.at] === '?') this.at++;
    return q;
  }

  private atom(): Info {
    const c = this.source[this.at++]!;
    if (c === '^' || c === '$') return ZERO_WIDTH;
    if (c === '.') return SOME_CHARACTER;
    if (c === '(') return this.group();
    if (c === '[') return this.characterClass();
    if (c === '\\') return this.escape();
    if ('*+?{}])|'.includes(c)) throw new Unsure();
    return this.literal(c);
  }

  private group(): Info {
    if (this.source[this.at] === '?') {
      if (this.source[this.at + 1] !== ':') throw new Unsure();
      this.at += 2;
    }
    const inner = this.disjunction();
    if (this.source[this.at++] !== ')') throw new Unsure();
    return inner;
  }

  private escape(): Info {
    const c = this.source[this.at++];
    if (c === undefined) throw new Unsure();
    if (c === 'b' || c === 'B') return ZERO_WIDTH;
    if ('dDwWsS'.includes(c)) return SOME_CHARACTER;
    return this.literal(this.escapedCharacter(c));
  }

  /** The character an escape (after its backslash) stands for, `c` being its first character. */
  private escapedCharacter(c: string): string {
    if (CONTROL[c]) return CONTROL[c];
    if (c === '0' && !/\d/.test(this.source[this.at] ?? '')) return '\0';
    const hex = c === 'x' ? /^[0-9a-fA-F]{2}/.exec(this.source.slice(this.at)) : c === 'u' ? /^[0-9a-fA-F]{4}/.exec(this.source.slice(this.at)) : null;
    if (hex) {
      this.at += hex[0].length;
      return String.fromCharCode(parseInt(hex[0], 16));
    }
    if (PUNCTUATION.test(c)) return c;
    throw new Unsure();
  }

  /** One character as literals hold it: folded when case does not count; unknown past ASCII then, or a lone surrogate. */
  private folded(c: string): string | undefined {
    const code = c.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdfff) return undefined;
    if (!this.ignoreCase) return c;
    return code < 0x80 ? c.toLowerCase() : undefined;
  }

  private literal(c: string): Info {
    const f = this.folded(c);
    return f === undefined ? SOME_CHARACTER : { exact: [f], min: 1 };
  }

  private characterClass(): Info {
    const negated = this.source[this.at] === '^';
    if (negated) this.at++;
    if (this.source[this.at] === ']') throw new Unsure();
    const chars = new Set<string>();
    let known = !negated;
    while (this.source[this.at] !== ']') {
      const from = this.classCharacter();
      if (this.source[this.at] === '-' && this.source[this.at + 1] !== ']' && from !== undefined) {
        this.at++;
        const to = this.classCharacter();
        if (to === undefined || to.charCodeAt(0) < from.charCodeAt(0)) throw new Unsure();
        if (to.charCodeAt(0) - from.charCodeAt(0) >= MAX_CLASS) known = false;
        else for (let code = from.charCodeAt(0); code <= to.charCodeAt(0); code++) chars.add(String.fromCharCode(code));
      } else if (from === undefined) known = false;
      else chars.add(from);
    }
    this.at++;
    const folded = [...chars].map((c) => this.folded(c));
    if (!known || folded.some((f) => f === undefined) || chars.size > MAX_CLASS) return SOME_CHARACTER;
    return { exact: [...new Set(folded as string[])], min: 1 };
  }

  /** One character of a class; undefined for a class escape (\s, \w, \d and their negations). */
  private classCharacter(): string | undefined {
    const c = this.source[this.at++];
    if (c === undefined) throw new Unsure();
    if (c !== '\\') return c;
    const e = this.source[this.at++];
    if (e === undefined || e === 'b') throw new Unsure();
    if ('dDwWsS'.includes(e)) return undefined;
    return this.escapedCharacter(e);
  }
}
