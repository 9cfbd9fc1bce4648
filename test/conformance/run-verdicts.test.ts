import { describe, expect, it } from 'vitest';
import { runProblems, type KnownRun } from '../helpers/conformance-verdicts.js';

const known: KnownRun = { scenarios: 3, checks: 4, exempt: { 'tasks-x': 'the reference server hosts no tasks' } };
const results = (...rows: [string, number, number][]) => new Map(rows.map(([name, passed, failed]) => [name, [passed, failed] as const]));

describe('a suite run through mcpkit, judged without a direct run', () => {
  it.each<[string, ReturnType<typeof results>, string[]]>([
    ['every scenario passes, as many as known', results(['a', 2, 0], ['b', 1, 0], ['c', 1, 0]), []],
    ['more scenarios and checks than known', results(['a', 2, 0], ['b', 1, 0], ['c', 1, 0], ['d', 3, 0]), []],
    ['a failed check fails its scenario', results(['a', 1, 1], ['b', 1, 0], ['c', 2, 0]), ['a: 1 passed, 1 failed']],
    ['a scenario that checked nothing', results(['a', 3, 0], ['b', 1, 0], ['c', 0, 0]), ['c: checked nothing']],
    ['fewer scenarios than known', results(['a', 3, 0], ['b', 1, 0]), ['2 scenarios ran, at least 3 expected']],
    ['fewer checks than known (a scenario checked less)', results(['a', 1, 0], ['b', 1, 0], ['c', 1, 0]), ['3 checks passed, at least 4 expected']],
    ['an exempt scenario may fail', results(['a', 2, 0], ['b', 1, 0], ['c', 1, 0], ['tasks-x', 0, 3]), []],
    [
      "an exempt scenario's checks and itself do not make up the counts",
      results(['a', 1, 0], ['b', 1, 0], ['tasks-x', 5, 0]),
      ['2 scenarios ran, at least 3 expected', '2 checks passed, at least 4 expected'],
    ],
    ['nothing ran', results(), ['0 scenarios ran, at least 3 expected', '0 checks passed, at least 4 expected']],
  ])('%s', (_, run, problems) => {
    expect(runProblems(run, known)).toEqual(problems);
  });
});
