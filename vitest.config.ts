import { defineConfig } from 'vitest/config';

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
  },
});
