import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files known to take long, longest first: on a fresh clone vitest has no timings and starts the
 * largest files first, so a file that takes minutes, or a small file that spends most of its time
 * waiting (a token to expire, a grace period), could start last and run alone at the end. Started
 * first, the rest of the suite fills in beside them. Ordered by wall time in a full run at the end
 * of this list's last change (the daemon's file about 125-160 s, the conformance clients about 125 s;
 * cancel-eras and client-tokens moved down once their tests shared a serve or waited at once;
 * reliability and guide-teams once their waits overlapped; revived-upstream, about 37 s once its
 * servers' reconnect schedule was set shorter, about 25 s with rounds of one attempt, now just
 * below secret-keyring).
 */
const LONGEST_FIRST = [
  'test/e2e/daemon.test.ts',
  'test/e2e/daemon-output.test.ts',
  'test/e2e/conformance-2026-clients.test.ts',
  'test/e2e/doc-lines.test.ts',
  'test/e2e/conformance-chained-2026.test.ts',
  'test/e2e/eras.test.ts',
  'test/e2e/daemon-safety.test.ts',
  'test/e2e/reliability.test.ts',
  'test/e2e/secret-keyring.test.ts',
  'test/e2e/revived-upstream.test.ts',
  'test/e2e/terminal.test.ts',
  'test/e2e/conformance-2026.test.ts',
  'test/e2e/live-config.test.ts',
  'test/e2e/client-tokens.test.ts',
  'test/e2e/cancel-eras.test.ts',
  'test/e2e/conformance.test.ts',
  'test/e2e/completion-names.test.ts',
  'test/e2e/clients.test.ts',
  'test/e2e/terminal-tasks.test.ts',
  'test/e2e/guide-teams.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * Three kinds of test, each runnable alone (`npx vitest run --project unit`): `unit`, pure logic
 * and single modules, in milliseconds; `integration`, serve and the CLI in the test's own process
 * with real upstream servers (test/mcp/); `e2e`, what only processes show (argv, exit codes,
 * signals, the daemon, stdio framing, the README tour) and the conformance suite through mcpkit.
 */
const PROCESS_TESTS = ['test/e2e/**/*.test.ts'];
const IN_PROCESS = ['test/mcp/**/*.test.ts'];
/** Run before every file of a project whose files share a worker: the hooks that end what the file started. */
const SHARED_WORKER_HOOKS = ['test/helpers/serves-end.ts'];

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...PROCESS_TESTS, ...IN_PROCESS, 'test/fixtures/**', 'node_modules/**'],
          // Pure logic and single modules, each file leaving nothing behind: they share their
          // workers and modules instead of a fresh process each (measured: 30 CPU-s against 56 for
          // the 121 files; they pass in any order, --sequence.shuffle.files).
          isolate: false,
          setupFiles: ['test/helpers/file-end.ts'],
        },
      },
      // These share their workers and modules too: a fresh worker per file loaded the MCP SDK and
      // serve's modules again for each (measured on 12 files of test/mcp: 43.4 CPU-s isolated,
      // 25.0 shared). What a file starts is ended by its setup file's hooks (serves-end.ts), and a
      // file that changes process.env or the folder puts it back.
      { extends: true, test: { name: 'integration', include: IN_PROCESS, isolate: false, setupFiles: SHARED_WORKER_HOOKS } },
      { extends: true, test: { name: 'e2e', include: PROCESS_TESTS, isolate: false, setupFiles: SHARED_WORKER_HOOKS } },
    ],
    // The upstream servers the tests start, bundled (test/helpers/upstream-bundles.ts).
    globalSetup: ['test/helpers/global-setup.ts'],
    // MCPKIT_TEST_CPU=FILE: each file's CPU seconds, appended to FILE (scripts/test-cpu.mjs sums them).
    setupFiles: ['test/helpers/cpu-meter.ts'],
    // Fixtures that fail on purpose, run by the tests that need them.
    exclude: ['test/fixtures/**', 'node_modules/**'],
    // End-to-end tests spawn the built CLI; on 2 cores they need room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three files at a time on two cores: many files spend seconds waiting (a token to expire, a
    // grace period, a server that never answers), and with two at a time the cores were busy 1.65
    // of 2 on average after the first minute. Measured on a fresh clone: two at a time 353 s,
    // three 317 s (1.88 of 2 busy). Set here, not on the command line: a project takes the
    // config's value, and `--maxWorkers` did not reach the projects. Four at a time, measured on a
    // fresh clone of 702c841: npm test in 8 min 51 s against about 9 min 37 s for three (vitest's
    // own part 527 s against 576 s), but the conformance suite's one-second windows
    // (server-stateless's listen stream, through two hops) were missed at that load; three stays
    // until those files tolerate it.
    maxWorkers: 3,
    // Tests that run concurrently inside a file (the conformance client scenarios): a few at a time.
    maxConcurrency: 3,
    sequence: { sequencer: LongestFirst },
  },
});
