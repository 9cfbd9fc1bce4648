import { makeUpstreamBundles } from './upstream-bundles.js';

/** Before any test file: the upstream servers' bundles (made once, kept while what they are made of stays the same). */
export default async function setup(): Promise<void> {
  await makeUpstreamBundles();
}
