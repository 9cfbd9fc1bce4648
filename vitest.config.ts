import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files known to take minutes, longest first: on a fresh clone vitest has no timings and starts
 * the largest files first, so a six-minute file that is small could start last and run alone at
 * the end. Started first, on both workers, the rest of the suite fills in beside them.
 */
const LONGEST_FIRST = ['test/e2e/conformance-2026-clients.test.ts', 'test/e2e/conformance-2026.test.ts', 'test/e2e/conformance.test.ts'];

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

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fixtures that fail on purpose, run by the tests that need them.
    exclude: ['test/fixtures/**', 'node_modules/**'],
    // End-to-end tests spawn the built CLI; on 2 cores they need room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time even on two cores (the default leaves one core to vitest): end-to-end
    // tests mostly wait on the processes they start, and the conformance runs take minutes.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
  },
});
