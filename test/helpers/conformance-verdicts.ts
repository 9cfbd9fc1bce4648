/**
 * A server suite run through mcpkit, judged on its own: no direct run against the reference server
 * beside it. The kits are pinned, and their reference servers pass every scenario directly (each
 * file says what was measured); so every scenario must pass through mcpkit too, the allow-list
 * (`exempt`, each with its reason) aside, and at least the known number of scenarios and checks
 * must have run: a suite that ran fewer (a scenario that checked less, or none) is caught as well.
 * That is stronger than "what passes directly passes through mcpkit", which a direct run that
 * failed too (a loaded machine) let pass.
 */
export interface KnownRun {
  /** Scenarios the suite runs, at least, the exempt ones not counted (the reference server passes each directly). */
  scenarios: number;
  /** Checks those scenarios pass directly, at least (the exempt ones' not counted). */
  checks: number;
  /** Scenario -> why it may fail through mcpkit. Never widened to make a test pass. */
  exempt: Readonly<Record<string, string>>;
}

/** What fails the run (empty: it passed), from scenario -> [checks passed, checks failed]. */
export function runProblems(results: ReadonlyMap<string, readonly [number, number]>, known: KnownRun): string[] {
  const judged = [...results].filter(([name]) => !Object.hasOwn(known.exempt, name));
  const problems = judged.flatMap(([name, [passed, failed]]) => {
    if (failed > 0) return [`${name}: ${passed} passed, ${failed} failed`];
    return passed === 0 ? [`${name}: checked nothing`] : [];
  });
  if (judged.length < known.scenarios) problems.push(`${judged.length} scenarios ran, at least ${known.scenarios} expected`);
  const checks = judged.reduce((sum, [, [passed]]) => sum + passed, 0);
  if (checks < known.checks) problems.push(`${checks} checks passed, at least ${known.checks} expected`);
  return problems;
}

/**
 * With MCPKIT_CONFORMANCE_DIRECT=1 the files also run the suite against the reference server
 * directly, to measure the known numbers again (after a kit upgrade): the direct run must pass
 * every scenario with at least those numbers, or they are no longer what the kit does.
 */
export const directBaselineAsked = process.env.MCPKIT_CONFORMANCE_DIRECT === '1';
