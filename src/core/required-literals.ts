/**
 * What every match of a regular expression must contain, read from its source: a set of literal
 * strings, one of which is in any match, and the shortest a match can be. A text that holds none of
 * them (or is shorter) cannot match, so a scanner may skip the regular expression's engine for it
 * (core/prefiltered-regexp.ts). Derived, never written by hand: a wrong hand-made annotation would
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
  /** No match is shorter (in UTF-16 code units, a lower bound). */
  minLength: number;
  ignoreCase: boolean;
}

/** What is known of what a part of a pattern matches. */
interface Info {
  /** Every string it can match, when they are few. */
  exact?: readonly string[];
  /** Every match contains one of these (none of them empty). */
  any?: readonly string[];
  min: number;
}

/** More strings than this in a set and it is dropped (as unknown): each costs a search of the text. */
const MAX_SET = 64;
/** A character class of more characters than this matches "some character" as far as literals go. */
const MAX_CLASS = 16;

const EMPTY: readonly string[] = [''];
const ZERO_WIDTH: Info = { exact: EMPTY, min: 0 };
const SOME_CHARACTER: Info = { min: 1 };

class Unsure extends Error {}

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
    return { ...(literals ? { literals: minimal(literals) } : {}), minLength: info.min, ignoreCase };
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
  // MAX_SET of them: a bounded constant times the text.
  return required.literals.some((literal) => subject.includes(literal));
}

/** The strings of a set, shortest first, less each that contains another: finding the shorter suffices. */
function minimal(set: readonly string[]): string[] {
  const kept: string[] = [];
  for (const s of [...set].sort((a, b) => a.length - b.length)) if (!kept.some((k) => s.includes(k))) kept.push(s);
  return kept;
}

/** What one of must be in every match: the exact strings when none is empty, else what is known. */
function requiredOf(info: Info): readonly string[] | undefined {
  return better(info.exact && !info.exact.includes('') ? info.exact : undefined, info.any);
}

function shortest(set: readonly string[]): number {
  let n = Infinity;
  for (const s of set) n = Math.min(n, s.length);
  return n;
}

/** The set that filters more: its shortest string the longer, then the fewer strings. */
function better(a: readonly string[] | undefined, b: readonly string[] | undefined): readonly string[] | undefined {
  if (!a || !b) return a ?? b;
  const [la, lb] = [shortest(a), shortest(b)];
  if (la !== lb) return la > lb ? a : b;
  return a.length <= b.length ? a : b;
}

function product(a: readonly string[], b: readonly string[]): readonly string[] | undefined {
  if (a.length * b.length > MAX_SET) return undefined;
  if (b.length === 1) return a.map((x) => x + b[0]);
  const out: string[] = [];
  for (const x of a) for (const y of b) out.push(x + y);
  return out;
}

function union(a: readonly string[] | undefined, b: readonly string[] | undefined): readonly string[] | undefined {
  if (!a || !b) return undefined;
  const out = a.length + b.length > MAX_SET ? [...new Set([...a, ...b])] : [...a, ...b];
  return out.length > MAX_SET ? undefined : out;
}

/**
 * A sequence of parts: the strings of a run of parts each with few matches are multiplied out (a
 * run's match is one of them), and the best set of the runs and of the other parts is kept.
 */
function sequence(parts: readonly Info[]): Info {
  let run: readonly string[] = EMPTY;
  let whole = true;
  let best: readonly string[] | undefined;
  let min = 0;
  for (const part of parts) {
    min += part.min;
    const longer = part.exact ? product(run, part.exact) : undefined;
    if (longer) {
      run = longer;
      continue;
    }
    whole = false;
    best = better(best, requiredOf({ exact: run, min: 0 }));
    if (part.exact) run = part.exact;
    else {
      best = better(best, part.any);
      run = EMPTY;
    }
  }
  if (whole) return { exact: run, min };
  best = better(best, requiredOf({ exact: run, min: 0 }));
  return { ...(best ? { any: best } : {}), min };
}

/** Alternatives: a match is one of theirs. */
function alternatives(parts: readonly Info[]): Info {
  if (parts.length === 1) return parts[0]!;
  let exact: readonly string[] | undefined = [];
  let any: readonly string[] | undefined = [];
  let min = Infinity;
  for (const part of parts) {
    exact = part.exact ? union(exact, part.exact) : undefined;
    any = union(any, requiredOf(part));
    min = Math.min(min, part.min);
  }
  return { ...(exact ? { exact } : {}), ...(any ? { any } : {}), min };
}

/**
 * `x{lo,hi}`. At least one repetition: a match holds what x's does; and when x's matches are
 * few, a match begins with `p` of them in a row (p up to lo, as many as the set allows).
 */
function repeat(x: Info, lo: number, hi: number): Info {
  const min = Math.min(x.min * lo, Number.MAX_SAFE_INTEGER);
  if (lo === 0) return hi === 1 && x.exact ? { exact: union(x.exact, EMPTY) ?? EMPTY, min: 0 } : { min: 0 };
  if (lo === 1 && hi === 1) return x;
  let run = x.exact;
  let p = 1;
  while (run && x.exact && p < lo) {
    const longer = product(run, x.exact);
    if (!longer) break;
    run = longer;
    p++;
  }
  const exact = lo === hi && p === lo ? run : undefined;
  const prefix = run && !run.includes('') ? run : undefined;
  const any = better(prefix, requiredOf(x));
  return { ...(exact ? { exact } : {}), ...(any ? { any } : {}), min };
}

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
class PatternReader {
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
