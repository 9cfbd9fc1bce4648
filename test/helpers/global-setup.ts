import { kit2025, kit2026 } from './kit-places.js';
import { warmServeCache } from './serve-warm-up.js';
import { bundleSpecs, makeBundles } from './upstream-bundles.js';

/**
 * Before any test file: the bundles of the programs the tests start (made once, kept while what
 * they are made of stays the same), and serve's code cache, from a whole session (serve-warm-up.ts).
 */
export default async function setup(): Promise<void> {
  await makeBundles(bundleSpecs([kit2025, kit2026]));
  await warmServeCache();
}
