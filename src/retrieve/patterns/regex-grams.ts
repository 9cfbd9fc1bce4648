import { DIGIT_SHAPE, trigramKey } from './trigrams.js';

/**
 * What a regular expression with no literal of three characters still requires of a file, for the
 * trigram filter (trigrams.ts): groups of keys, one of each group present. `[0-9]{4}-[0-9]{2}` has
 * no literal, but a match holds "DD-" for some digits D, which the filter keeps as the one shape
 * key "\x01\x01-" (every digit of a window stands as DIGIT_SHAPE): so here every digit, in a class
 * or written, is that byte, and a window without one is an ordinary trigram. Every run of three
 * small character sets one after another gives a group (at most MAX_GROUP keys: a Bloom filter a
 * fifth full lets a larger group through almost always); anything the reading does not follow (a
 * group, `.`, a large class, an optional part) only ends a run, so what is required is never more
 * than a match has. An alternation at the top gives nothing: its branches require different
 * things. Pure.
 */

/** The most keys one group may have: a filter about a fifth full lets 1 - 0.8^n of them through by chance. */
const MAX_GROUP = 4;
/** A set larger than this is as good as any character here (\w, [a-z0-9_]). */
const MAX_SET = 40;

/** A set of ASCII bytes (folded as the filter folds: letters lower-cased), or a break in the run. */
type Atom = ReadonlySet<number> | null;

const DIGITS: ReadonlySet<number> = new Set([DIGIT_SHAPE]);
/** A byte as the filter's keys hold it: letters lower-cased, every digit its shape. */
const fold = (b: number) => (b >= 48 && b <= 57 ? DIGIT_SHAPE : b >= 65 && b <= 90 ? b | 32 : b);

/** The groups of trigram keys a match requires, or undefined when the expression requires none the filter can use. */
export function regexGramGroups(source: string): number[][] | undefined {
  const atoms = readAtoms(source);
  if (!atoms) return undefined;
  const groups = new Map<string, number[]>();
  for (let i = 2; i < atoms.length; i++) {
    const [a, b, c] = [atoms[i - 2], atoms[i - 1], atoms[i]];
    if (!a || !b || !c || a.size * b.size * c.size > MAX_GROUP) continue;
    const keys: number[] = [];
    for (const x of a) for (const y of b) for (const z of c) keys.push(trigramKey(x, y, z));
    keys.sort((p, q) => p - q);
    groups.set(keys.join(','), keys);
  }
  return groups.size ? [...groups.values()] : undefined;
}

/** The expression as a run of atoms; undefined when it has an alternation at the top. */
function readAtoms(source: string): Atom[] | undefined {
  const atoms: Atom[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    let atom: Atom;
    if (c === '|') return undefined;
    if (c === '^' || c === '$') {
      i++;
      continue; // zero-width: the run goes on
    }
    if (c === '(') {
      i = closing(source, i);
      atom = null;
    } else if (c === '[') {
      const read = readClass(source, i);
      i = read.end;
      atom = read.atom;
    } else if (c === '\\') {
      const read = readEscape(source, i);
      i = read.end;
      if (read.atom === 'zero-width') continue;
      atom = read.atom;
    } else if (c === '.') {
      i++;
      atom = null;
    } else {
      const code = c.codePointAt(0)!;
      i += code > 0xffff ? 2 : 1;
      atom = code < 0x80 ? new Set([fold(code)]) : null;
    }
    i = quantified(source, i, atom, atoms);
  }
  return atoms;
}

/** Puts an atom in the run as its quantifier (if any) says, and returns where the expression goes on. */
function quantified(source: string, at: number, atom: Atom, atoms: Atom[]): number {
  const q = source[at];
  let end = at;
  let min = 1;
  let exact = true;
  if (q === '?' || q === '*') {
    min = 0;
    end++;
  } else if (q === '+') {
    exact = false;
    end++;
  } else if (q === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
    if (m) {
      min = Number(m[1]);
      exact = m[2] === undefined || m[3] === m[1];
      end += m[0].length;
    }
  }
  if (end > at && source[end] === '?') end++; // lazy: the same requirement
  if (min === 0) {
    atoms.push(null);
    return end;
  }
  const copies = Math.min(min, 8);
  for (let k = 0; k < copies; k++) atoms.push(atom);
  // More than the least: what comes before joins the first copies, what comes after the last ones.
  if (!exact || copies < min) {
    atoms.push(null);
    for (let k = 0; k < Math.min(copies, 2); k++) atoms.push(atom);
  }
  return end;
}

/** The index after the ")" that closes the group opened at `open`. */
function closing(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') i = readClass(source, i).end - 1;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  return source.length;
}

function readEscape(source: string, at: number): { atom: Atom | 'zero-width'; end: number } {
  const c = source[at + 1];
  if (c === undefined) return { atom: null, end: at + 1 };
  if (c === 'b' || c === 'B') return { atom: 'zero-width', end: at + 2 };
  if (c === 'd') return { atom: DIGITS, end: at + 2 };
  const byEscape: Record<string, number> = { t: 9, n: 10, r: 13, f: 12, v: 11 };
  if (byEscape[c] !== undefined) return { atom: new Set([byEscape[c]]), end: at + 2 };
  // A punctuation character escaped is itself; \w, \s, \p{..}, \x.., \u.., back-references: no set kept.
  if (/[^A-Za-z0-9]/.test(c) && c.charCodeAt(0) < 0x80) return { atom: new Set([fold(c.charCodeAt(0))]), end: at + 2 };
  const long = /^\\[pPxuck](\{[^}]*\}|[0-9A-Fa-f]{2,4}|[A-Za-z])?/.exec(source.slice(at));
  return { atom: null, end: at + (long?.[0].length ?? 2) };
}

/** A class `[...]` as a set of folded ASCII bytes; null when negated, large, or holding what is not ASCII. */
function readClass(source: string, at: number): { atom: Atom; end: number } {
  let i = at + 1;
  const negated = source[i] === '^';
  if (negated) i++;
  const set = new Set<number>();
  let unknown = negated;
  // In JavaScript a "]" ends a class even first: [] never matches, [^] is any character.
  while (i < source.length && source[i] !== ']') {
    if (source[i] === '\\') {
      const read = readEscape(source, i);
      i = read.end;
      if (read.atom === null || read.atom === 'zero-width') unknown = true;
      else for (const b of read.atom) set.add(b);
      continue;
    }
    const lo = source.charCodeAt(i);
    i++;
    if (source[i] === '-' && source[i + 1] !== ']' && source[i + 1] !== undefined && source[i + 1] !== '\\') {
      const hi = source.charCodeAt(i + 1);
      i += 2;
      if (hi >= 0x80 || lo >= 0x80 || hi < lo) unknown = true;
      else for (let b = lo; b <= hi; b++) set.add(fold(b));
      continue;
    }
    if (lo >= 0x80) unknown = true;
    else set.add(fold(lo));
  }
  const end = Math.min(source.length, i + 1);
  return { atom: unknown || set.size === 0 || set.size > MAX_SET ? null : set, end };
}
