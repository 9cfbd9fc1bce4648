import { kit2025, kit2026 } from './kit-places.js';
import { bundleSpecs, makeBundles } from './upstream-bundles.js';

/** Before any test file: the bundles of the programs the tests start (made once, kept while what they are made of stays the same). */
export default async function setup(): Promise<void> {
  await makeBundles(bundleSpecs([kit2025, kit2026]));
}
