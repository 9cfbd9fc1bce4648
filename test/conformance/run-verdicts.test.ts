import { describe, expect, it } from 'vitest';
import { baselineDrift, checkedLess, runProblems, type KnownRun } from '../helpers/conformance-verdicts.js';

const known: KnownRun = { checks: { a: 2, b: 1, c: 1 }, exempt: { 'tasks-x': 'the reference server hosts no tasks' } };
const results = (...rows: [string, number, number][]) => new Map(rows.map(([name, passed, failed]) => [name, [passed, failed] as const]));

describe('a suite run through mcpkit, judged without a direct run', () => {
  it.each<[string, ReturnType<typeof results>, string[]]>([
    ['every scenario passes, with its known checks', results(['a', 2, 0], ['b', 1, 0], ['c', 1, 0]), []],
    ['more scenarios and checks than known', results(['a', 3, 0], ['b', 1, 0], ['c', 1, 0], ['d', 3, 0]), []],
    ['a failed check fails its scenario', results(['a', 1, 1], ['b', 1, 0], ['c', 2, 0]), ['a: 1 passed, 1 failed']],
    ['a scenario that checked nothing', results(['a', 3, 0], ['b', 1, 0], ['c', 0, 0]), ['c: checked nothing']],
    ['an unknown scenario that checked nothing', results(['a', 2, 0], ['b', 1, 0], ['c', 1, 0], ['d', 0, 0]), ['d: checked nothing']],
    ['a known scenario not run', results(['a', 3, 0], ['b', 1, 0]), ['c: not run']],
    ['a scenario checked less than known', results(['a', 1, 0], ['b', 1, 0], ['c', 1, 0]), ['a: 1 checks passed, at least 2 expected']],
    // Skipped checks, not failed ones, while another scenario's gain keeps the total.
    ['a scenario checked less, the total unchanged', results(['a', 1, 0], ['b', 2, 0], ['c', 1, 0]), ['a: 1 checks passed, at least 2 expected']],
    [
      'a scenario checked less, an unknown one making up the total',
      results(['a', 1, 0], ['b', 1, 0], ['c', 1, 0], ['d', 5, 0]),
      ['a: 1 checks passed, at least 2 expected'],
    ],
    ['an exempt scenario may fail', results(['a', 2, 0], ['b', 1, 0], ['c', 1, 0], ['tasks-x', 0, 3]), []],
    ["an exempt scenario's checks do not stand in for a known one", results(['a', 2, 0], ['b', 1, 0], ['tasks-x', 5, 0]), ['c: not run']],
    ['nothing ran', results(), ['a: not run', 'b: not run', 'c: not run']],
  ])('%s', (_, run, problems) => {
    expect(runProblems(run, known)).toEqual(problems);
  });
});

describe('a direct run, against the known checks (MCPKIT_CONFORMANCE_DIRECT=1)', () => {
  it.each<[string, ReturnType<typeof results>, string[]]>([
    ['exactly the known checks', results(['a', 2, 0], ['b', 1, 0], ['c', 1, 0]), []],
    ['an exempt scenario is not counted', results(['a', 2, 0], ['b', 1, 0], ['c', 1, 0], ['tasks-x', 0, 2]), []],
    ['a scenario checks more than known', results(['a', 3, 0], ['b', 1, 0], ['c', 1, 0]), ['a: directly 3 passed, 0 failed; known 2']],
    ['a scenario checks less than known', results(['a', 1, 0], ['b', 1, 0], ['c', 1, 0]), ['a: directly 1 passed, 0 failed; known 2']],
    ['a scenario fails directly', results(['a', 2, 0], ['b', 1, 1], ['c', 1, 0]), ['b: directly 1 passed, 1 failed; known 1']],
    ['a scenario not known', results(['a', 2, 0], ['b', 1, 0], ['c', 1, 0], ['d', 1, 0]), ['d: runs directly (1 passed, 0 failed), not known']],
    ['a known scenario not run', results(['a', 2, 0], ['b', 1, 0]), ['c: known, not run directly']],
  ])('%s', (_, run, drift) => {
    expect(baselineDrift(run, known)).toEqual(drift);
  });
});

describe('the known scenarios that checked less than known, whatever failed (a loaded run may fail, never skip)', () => {
  it.each<[string, ReturnType<typeof results>, string[]]>([
    ['each with its known checks', results(['a', 2, 0], ['b', 1, 0], ['c', 1, 0]), []],
    ['a failed scenario is not counted as checking less', results(['a', 1, 1], ['b', 1, 0], ['c', 1, 0]), []],
    ['a scenario checked less, the total unchanged', results(['a', 1, 0], ['b', 2, 0], ['c', 1, 0]), ['a: 1 checks passed, at least 2 expected']],
    ['a scenario that passed checking nothing', results(['a', 0, 0], ['b', 2, 0], ['c', 2, 0]), ['a: checked nothing']],
    ['a known scenario not run', results(['a', 2, 0], ['b', 1, 0]), ['c: not run']],
  ])('%s', (_, run, problems) => {
    expect(checkedLess(run, known)).toEqual(problems);
  });

  it('an exempt scenario is not judged, were it listed with its checks', () => {
    expect(checkedLess(results(['a', 2, 0], ['b', 1, 0], ['c', 1, 0], ['tasks-x', 0, 0]), { ...known, checks: { ...known.checks, 'tasks-x': 3 } })).toEqual([]);
  });
});
