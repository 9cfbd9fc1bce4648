import { describe, expect, it } from 'vitest';
import { namesARun, startsARun } from '../../src/code/nested-runs.js';
import { RUN_OVERHEAD_MB, RunBudget, runBudgetDefaults, runBudgetSettingsOf, WAITING_THREAD_MB } from '../../src/code/run-budget.js';

/** The pure parts of code mode's one budget: which names are runs, and which runs fit (code/nested-runs.ts, code/run-budget.ts). */
describe('namesARun: a run by any spelling', () => {
  it.each([
    ['mcpkit_run_code', true],
    ['research_run_code', true],
    ['MCPKIT-RUN-CODE', true],
    ['Mcpkit.Run.Code', true],
    ['mcpkitRunCode', true],
    ['ｍｃｐｋｉｔ＿ｒｕｎ＿ｃｏｄｅ', true],
    ['inner__mcpkit_run_code', true],
    ['run\u200bcode', true],
    ['code_run', true],
    ['everything__echo', false],
    ['mcpkit_search_tools', false],
    ['run_codes', false],
  ])('%s: %s', (name, run) => {
    expect(namesARun(name)).toBe(run);
  });

  it('a call_tool meta-tool naming a run starts one; naming another tool does not', () => {
    expect(startsARun('mcpkit_call_tool', { name: 'MCPKIT_RUN_CODE' })).toBe(true);
    expect(startsARun('mcpkit_call_tool', { name: 'everything__echo' })).toBe(false);
    expect(startsARun('everything__echo', { name: 'mcpkit_run_code' })).toBe(false);
  });
});

describe('RunBudget: runs in flight in all, per client, and their memory', () => {
  const settings = { maxRuns: 3, maxRunsPerClient: 2, maxMemoryMb: 4 * (64 + RUN_OVERHEAD_MB) };
  const run = { memoryMb: 64, timeoutMs: 30_000 };

  it.each([
    [
      'a third run of one client',
      [
        ['a', run],
        ['a', run],
      ],
      ['a', run],
      'max_runs_per_client',
    ],
    [
      'a fourth run in all',
      [
        ['a', run],
        ['b', run],
        ['c', run],
      ],
      ['d', run],
      'max_runs',
    ],
    [
      'a run whose memory does not fit beside the others',
      [
        ['a', run],
        ['b', run],
      ],
      ['c', { memoryMb: 200, timeoutMs: 1000 }],
      'max_memory_mb',
    ],
  ] as const)('%s is refused RATE_LIMITED, naming the setting', (_what, before, next, setting) => {
    const budget = new RunBudget();
    for (const [client, r] of before) expect(budget.admit(client, r, settings, 0).ok).toBe(true);
    const refused = budget.admit(next[0], next[1], settings, 1000);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining(`serve.code.${setting}`) });
    expect(refused.error.details).toHaveProperty(setting);
    // The first run ends by 30,000 ms: a second is the most a refusal asks to wait.
    expect(refused.error.details!.retry_after_ms).toBe(1000);
  });

  it('a place comes back when its run ends; retry_after_ms is when the first run ends, at the latest', () => {
    const budget = new RunBudget();
    const first = budget.admit('a', { memoryMb: 64, timeoutMs: 300 }, settings, 0);
    budget.admit('a', run, settings, 0);
    const refused = budget.admit('a', run, settings, 100);
    expect(!refused.ok && refused.error.details!.retry_after_ms).toBe(200);
    if (first.ok) first.release();
    expect(budget.admit('a', run, settings, 100).ok).toBe(true);
  });

  // Two threads wait; each run would take one (not counted: it becomes the run's), the fake keeps both.
  it.each([
    ['fits beside the runs and the other waiting thread: it waits on', 2 * (64 + RUN_OVERHEAD_MB) + WAITING_THREAD_MB, 2],
    ['fits beside the runs only: the other waiting thread ends, and it runs', 2 * (64 + RUN_OVERHEAD_MB) + WAITING_THREAD_MB - 1, 1],
    ['fits exactly: the other waiting thread ends', 2 * (64 + RUN_OVERHEAD_MB), 1],
  ])('threads kept for a next run count in max_memory_mb: a run that %s', (_what, maxMemoryMb, waitingAfter) => {
    let waiting = 2;
    const budget = new RunBudget({ count: () => waiting, end: (count) => void (waiting -= count) });
    const tight = { ...settings, maxMemoryMb };
    expect(budget.admit('a', { memoryMb: 64, timeoutMs: 1000 }, tight, 0).ok).toBe(true);
    expect(budget.admit('b', { memoryMb: 64, timeoutMs: 1000 }, tight, 0).ok).toBe(true);
    expect(waiting).toBe(waitingAfter);
  });

  it('a run that could never fit is SCRIPT_LIMIT, not a wait', () => {
    const refused = new RunBudget().admit('a', { memoryMb: 1024, timeoutMs: 1000 }, settings, 0);
    expect(!refused.ok && refused.error.code).toBe('SCRIPT_LIMIT');
  });

  it.each([
    [1, 1024, { maxRuns: 4, maxRunsPerClient: 2, maxMemoryMb: 320 }],
    [2, 24_000, { maxRuns: 8, maxRunsPerClient: 2, maxMemoryMb: 640 }],
    [16, 65_536, { maxRuns: 64, maxRunsPerClient: 16, maxMemoryMb: 5120 }],
    [64, 8192, { maxRuns: 256, maxRunsPerClient: 64, maxMemoryMb: 4096 }],
  ])('defaults for %i cores and %i MB: %o', (cores, totalMb, expected) => {
    expect(runBudgetDefaults(cores, totalMb)).toEqual(expected);
  });

  it("serve.code's settings over the defaults", () => {
    const defaults = runBudgetDefaults(2, 24_000);
    expect(runBudgetSettingsOf({ max_runs: 1 }, defaults)).toEqual({ ...defaults, maxRuns: 1 });
    expect(runBudgetSettingsOf(undefined, defaults)).toEqual(defaults);
  });
});
