import { join, resolve } from 'node:path';

/**
 * Where the two conformance kits are (test/helpers/conformance-kit.ts says what each holds): beside
 * the checkout, as .ci/run has them, or where MCPKIT_CONFORMANCE_DIR and MCPKIT_CONFORMANCE_2026_DIR
 * point. Without the test helpers' hooks, so that the global setup can read it too.
 */
const ROOT = join(import.meta.dirname, '../..');
export const kit2026 = resolve(process.env.MCPKIT_CONFORMANCE_2026_DIR ?? join(ROOT, '../shared/conformance-2026'));
export const kit2025 = resolve(process.env.MCPKIT_CONFORMANCE_DIR ?? join(ROOT, '../shared/conformance'));
