/**
 * The repository's root. A module of its own, without the test hooks test/helpers/cli.ts
 * registers, so that vitest's global setup (which runs outside any test file) can use it too.
 */
export const ROOT = new URL('../..', import.meta.url).pathname;
