/**
 * The algebra of what a part of a regular expression's matches contain (./required-literals.ts):
 * the strings it can match when they are few, a set one of which is in every match, the shortest
 * match; and how parts in sequence, alternatives and repetitions combine them. Pure.
 */

/** What is known of what a part of a pattern matches. */
export interface Info {
  /** Every string it can match, when they are few. */
  exact?: readonly string[];
  /** Every match contains one of these (none of them empty). */
  any?: readonly string[];
  /**
   * Sets every match ALSO contains one of (each as `any`), found beside `any` in a sequence: a
   * text must hold one string of each. Dropping any of them is always sound (only less is
   * filtered), so only sequences and repetitions of at least one keep them.
   */
  also?: readonly (readonly string[])[];
  min: number;
}

/** More strings than this in a set and it is dropped (as unknown): each costs a search of the text. */
const MAX_SET = 64;
/** A character class of more characters than this matches "some character" as far as literals go. */
export const MAX_CLASS = 16;

export const EMPTY: readonly string[] = [''];
export const ZERO_WIDTH: Info = { exact: EMPTY, min: 0 };
export const SOME_CHARACTER: Info = { min: 1 };

/** The strings of a set, shortest first, less each that contains another: finding the shorter suffices. */
export function minimal(set: readonly string[]): string[] {
  const kept: string[] = [];
  for (const s of [...set].sort((a, b) => a.length - b.length)) if (!kept.some((k) => s.includes(k))) kept.push(s);
  return kept;
}

/** What one of must be in every match: the exact strings when none is empty, else what is known. */
export function requiredOf(info: Info): readonly string[] | undefined {
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
export function sequence(parts: readonly Info[]): Info {
  let run: readonly string[] = EMPTY;
  let whole = true;
  // Every set found required on the way: the best of the runs and parts is `any`, the rest `also`.
  const found: (readonly string[])[] = [];
  const inner: (readonly string[])[] = [];
  const keep = (set: readonly string[] | undefined) => {
    if (set) found.push(set);
  };
  let min = 0;
  for (const part of parts) {
    min += part.min;
    const longer = part.exact ? product(run, part.exact) : undefined;
    if (longer) {
      run = longer;
      continue;
    }
    whole = false;
    keep(requiredOf({ exact: run, min: 0 }));
    inner.push(...(part.also ?? []));
    if (part.exact) run = part.exact;
    else {
      keep(part.any);
      run = EMPTY;
    }
  }
  if (whole) return { exact: run, min };
  keep(requiredOf({ exact: run, min: 0 }));
  const best = found.reduce<readonly string[] | undefined>((a, b) => better(a, b), undefined);
  const also = [...found.filter((set) => set !== best), ...inner].slice(0, MAX_ALSO);
  return { ...(best ? { any: best } : {}), ...(also.length ? { also } : {}), min };
}

/** At most this many further sets are kept: each costs a search of the text. */
const MAX_ALSO = 8;

/** Alternatives: a match is one of theirs. */
export function alternatives(parts: readonly Info[]): Info {
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
export function repeat(x: Info, lo: number, hi: number): Info {
  const min = Math.min(x.min * lo, Number.MAX_SAFE_INTEGER);
  if (lo === 0) {
    // x or nothing: its set and the empty string, exactly; past the set's bound, no set at all
    // (never the empty string alone, which would glue the literals either side of it together).
    const optional = hi === 1 && x.exact ? union(x.exact, EMPTY) : undefined;
    return optional ? { exact: optional, min: 0 } : { min: 0 };
  }
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
  // At least one repetition: what x's every match also holds, this one's does.
  return { ...(exact ? { exact } : {}), ...(any ? { any } : {}), ...(x.also ? { also: x.also } : {}), min };
}
