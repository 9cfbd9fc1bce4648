import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files known to take long, longest first: on a fresh clone vitest has no timings and starts the
 * largest files first, so a file that takes minutes, or a small file that spends most of its time
 * waiting (a token to expire, a grace period), could start last and run alone at the end. Started
 * first, the rest of the suite fills in beside them. Ordered by wall time in a full run at the end
 * of this list's last change (four files at a time: the conformance clients and the doc lines about
 * 70 s, the chained conformance run about 58 s, eras about 50 s, the daemon's two files about 45 s).
 */
const LONGEST_FIRST = [
  'test/e2e/conformance-2026-clients.test.ts',
  'test/e2e/doc-lines.test.ts',
  'test/e2e/conformance-chained-2026.test.ts',
  'test/e2e/eras.test.ts',
  'test/e2e/daemon-output.test.ts',
  'test/e2e/daemon.test.ts',
  'test/e2e/serve-code-cache.test.ts',
  'test/e2e/clients.test.ts',
  'test/e2e/conformance.test.ts',
  'test/e2e/conformance-tasks.test.ts',
  'test/mcp/code-mode.test.ts',
  'test/e2e/conformance-2026.test.ts',
  'test/e2e/retrieve.test.ts',
  'test/e2e/http-safety.test.ts',
  'test/e2e/revived-upstream.test.ts',
  'test/e2e/retrieve-safety.test.ts',
  'test/e2e/cli.test.ts',
  'test/e2e/proxy.test.ts',
  'test/e2e/shared-store.test.ts',
  'test/e2e/live-config.test.ts',
  'test/e2e/guide-teams.test.ts',
  // Short, but mostly a wait (its nested run's grace for stragglers): ranked by size it started last
  // and ran alone for its 5 s at the run's end.
  'test/e2e/litter-check.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      // The module-mock files last: each runs in a worker of its own (the seams project), and
      // vitest made room for them by ending two of the suite's workers, whose files then ran in
      // new workers that loaded every module again. Last, they take the places of workers done.
      if (file.moduleId.endsWith('-seams.test.ts')) return LONGEST_FIRST.length + 1;
      const at = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

// Three kinds of test, by folder: unit tests, pure logic and single modules, in milliseconds
// (everywhere but the two below); integration tests, serve and the CLI in the test's own process
// with real upstream servers (test/mcp/); end-to-end tests, what only processes show (argv, exit
// codes, signals, the daemon, stdio framing, the README tour) and the conformance suite through
// mcpkit (test/e2e/). Each runs alone by its folder (`npx vitest run test/e2e`); the unit tests
// with `npx vitest run --exclude 'test/e2e/**' --exclude 'test/mcp/**'`.

/** Run before every file of the project whose files share a worker: the hooks that end what the file started. */
const SHARED_WORKER_HOOKS = ['test/helpers/serves-end.ts'];
/**
 * Files that replace a module (`vi.mock`): a mock applies only where the module is imported after
 * it, so in a worker whose modules are shared with earlier files it may silently not apply and the
 * test pass without testing anything. They get modules of their own.
 */
const MODULE_MOCKS = ['test/**/*-seams.test.ts'];

export default defineConfig({
  test: {
    projects: [
      // One project for the three kinds, sharing its workers and their modules. As three projects
      // (the earlier setting), each had workers of its own, and each worker loaded the MCP SDK and
      // serve's modules again, and vitest transformed each source file once per project: measured
      // on 78 files of the three kinds, 116 CPU-s as three projects against 95 as one. The files
      // pass sharing modules: a unit file leaves nothing behind, and what an integration or
      // end-to-end file starts is ended by the setup file's hooks (serves-end.ts); a file that
      // changes process.env or the folder puts it back.
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...MODULE_MOCKS, 'test/fixtures/**', 'node_modules/**'],
          isolate: false,
          setupFiles: SHARED_WORKER_HOOKS,
        },
      },
      { extends: true, test: { name: 'seams', include: MODULE_MOCKS, isolate: true, setupFiles: ['test/helpers/file-end.ts'] } },
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
    // Four files at a time on two cores: many files spend seconds waiting (a token to expire, a
    // grace period, a server that never answers), so more files than cores keep both busy. Set
    // here, not on the command line: a project takes the config's value, and `--maxWorkers` did
    // not reach the projects. Measured on clones of main at c9580af, quiet machine: three at a
    // time (the earlier setting) 473 s of vitest, four 423 s, five 449 s (the cores were busy 2.00
    // of 2 throughout at five: past four, more files only share the same CPU, at a cost). Four
    // once lost a config edit's lock ("Lost the lock ... while editing"): the lock was mended
    // (config/files/lock.ts), not the count.
    maxWorkers: 4,
    // Tests that run concurrently inside a file (the conformance client scenarios): a few at a time.
    maxConcurrency: 3,
    sequence: { sequencer: LongestFirst },
  },
});
