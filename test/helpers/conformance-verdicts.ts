/**
 * A server suite run through mcpkit, judged on its own: no direct run against the reference server
 * beside it. The kits are pinned, and their reference servers pass every scenario directly with a
 * known number of checks each (each file says what was measured); so every scenario must pass
 * through mcpkit too, the allow-list (`exempt`, each with its reason) aside, and with at least its
 * known checks: a scenario whose checks were skipped rather than failed (a capability mcpkit
 * stopped advertising) is caught even when another scenario gained checks. That is stronger than
 * "what passes directly passes through mcpkit", which a direct run that failed too (a loaded
 * machine) let pass.
 */
export interface KnownRun {
  /** Scenario -> the checks the reference server passes in it directly (the exempt ones not listed). */
  checks: Readonly<Record<string, number>>;
  /** Scenario -> why it may fail through mcpkit. Never widened to make a test pass. */
  exempt: Readonly<Record<string, string>>;
}

type Results = ReadonlyMap<string, readonly [number, number]>;

/** What fails the run (empty: it passed), from scenario -> [checks passed, checks failed]. */
export function runProblems(results: Results, known: KnownRun): string[] {
  const judged = [...results].filter(([name]) => !Object.hasOwn(known.exempt, name));
  const failures = judged.flatMap(([name, [passed, failed]]) => {
    if (failed > 0) return [`${name}: ${passed} passed, ${failed} failed`];
    // A known scenario that checked nothing is checkedLess's.
    return passed === 0 && !Object.hasOwn(known.checks, name) ? [`${name}: checked nothing`] : [];
  });
  return [...failures, ...checkedLess(results, known)];
}

/**
 * The known scenarios that passed with fewer checks than known, or did not run: checks skipped,
 * not failed, which no load explains (a scenario that failed a check is judged apart).
 */
export function checkedLess(results: Results, known: KnownRun): string[] {
  const judged = Object.entries(known.checks).filter(([name]) => !Object.hasOwn(known.exempt, name));
  return judged.flatMap(([name, expected]) => {
    const result = results.get(name);
    if (!result) return [`${name}: not run`];
    const [passed, failed] = result;
    if (failed > 0 || passed >= expected) return [];
    return [passed === 0 ? `${name}: checked nothing` : `${name}: ${passed} checks passed, at least ${expected} expected`];
  });
}

/**
 * What a direct run (MCPKIT_CONFORMANCE_DIRECT=1) shows the known checks no longer are: every
 * scenario must pass with exactly its known count, and none run that is not known (nor exempt).
 */
export function baselineDrift(direct: Results, known: KnownRun): string[] {
  const drift = [...direct]
    .filter(([name]) => !Object.hasOwn(known.exempt, name))
    .flatMap(([name, [passed, failed]]) => {
      if (!Object.hasOwn(known.checks, name)) return [`${name}: runs directly (${passed} passed, ${failed} failed), not known`];
      const expected = known.checks[name];
      return failed > 0 || passed !== expected ? [`${name}: directly ${passed} passed, ${failed} failed; known ${expected}`] : [];
    });
  const missing = Object.keys(known.checks).filter((name) => !direct.has(name));
  return [...drift, ...missing.map((name) => `${name}: known, not run directly`)];
}

/**
 * With MCPKIT_CONFORMANCE_DIRECT=1 the files also run the suite against the reference server
 * directly, to measure the known checks again (after a kit upgrade): the direct run must match
 * them exactly, or they are no longer what the kit does.
 */
export const directBaselineAsked = process.env.MCPKIT_CONFORMANCE_DIRECT === '1';
