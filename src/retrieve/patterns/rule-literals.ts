/**
 * The literal text each .gitignore rule needs in a path before it can match it, so that a walk
 * asks the `ignore` package (microseconds a path, ~45 regular expressions for babel's root
 * .gitignore, which has slashes and so no name-only shortcut) only about the few paths that
 * hold every literal of some rule. Measured on babel (27k files): those tests were ~40% of a
 * cold walk.
 *
 * Why this never changes a verdict: a rule's regular expression matches only strings that hold
 * each literal run of its pattern (case-sensitive: the rules are compiled with ignorecase off),
 * and the package's verdict on a path comes from a rule matching the path or one of its parent
 * folders, each a prefix of the path, so the path holds that rule's literals too. Any subset of
 * a rule's runs is still a necessary condition, so whatever is in doubt (a bracket class, an
 * escaped character, anything not a plain name character) is left out of the runs, and a rule
 * with no run at all (`*`, `**`) turns the filter off for its whole file. Pure.
 */

/** Characters taken as literal runs: what no gitignore syntax gives another meaning. */
const PLAIN = /[A-Za-z0-9._-]/;

/**
 * One pattern's literal runs (without its `!`), in the order they are best tried: longest first,
 * but the pattern's first run last, as it is most often a top folder that most paths share
 * (`packages` in `/packages/x/LICENSE`). Empty when it has none.
 */
export function literalRuns(pattern: string): string[] {
  const runs: string[] = [];
  let run = '';
  const end = () => {
    if (run) runs.push(run);
    run = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      end();
      i++; // the escaped character: kept out of every run
    } else if (c === '[') {
      end();
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) break; // an unclosed class: nothing after it is counted on
      i = close;
    } else if (PLAIN.test(c)) run += c;
    else end();
  }
  end();
  const [first, ...rest] = runs;
  return first === undefined ? [] : [...rest.sort((a, b) => b.length - a.length), first];
}

/**
 * Each rule's literal runs, in file order, or undefined when some rule has none (it could match
 * any path, so no path can be passed over). Comments and blank lines make no rule.
 */
export function ruleLiterals(text: string): string[][] | undefined {
  const rules: string[][] = [];
  // The package drops a byte order mark before the first line only.
  for (const line of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    // Only what the package surely makes no rule of is passed over (a line it made a rule of and
    // this did not would be a rule unaccounted for): a comment, a line of spaces or nothing.
    if (line.startsWith('#') || /^ *\r?$/.test(line)) continue;
    const runs = literalRuns(line.startsWith('!') ? line.slice(1) : line);
    if (runs.length === 0) return undefined;
    rules.push(runs);
  }
  return rules;
}

/** Whether some rule's literals all occur in `path` (only then can that rule match it). */
export function mayMatchSome(rules: readonly (readonly string[])[], path: string): boolean {
  outer: for (const runs of rules) {
    for (const run of runs) if (!path.includes(run)) continue outer;
    return true;
  }
  return false;
}
