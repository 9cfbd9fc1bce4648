import { join, resolve } from 'node:path';
import { ROOT } from './root.js';

/**
 * Where the two conformance kits are (test/helpers/conformance-kit.ts says what each holds): beside
 * the checkout, as .ci/run has them, or where MCPKIT_CONFORMANCE_DIR and MCPKIT_CONFORMANCE_2026_DIR
 * point. Without the test helpers' hooks, so that the global setup can read it too.
 */
export const kit2026 = resolve(process.env.MCPKIT_CONFORMANCE_2026_DIR ?? join(ROOT, '../shared/conformance-2026'));
export const kit2025 = resolve(process.env.MCPKIT_CONFORMANCE_DIR ?? join(ROOT, '../shared/conformance'));
