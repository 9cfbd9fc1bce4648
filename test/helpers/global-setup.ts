import { kit2025, kit2026 } from './kit-places.js';
import { warmDaemonCache, warmServeCache, warmUpstreamCaches } from './serve-warm-up.js';
import { bundleSpecs, makeBundles } from './upstream-bundles.js';
import { startUpstreamPool } from './upstream-pool.js';
import { makeSnapshots } from './upstream-snapshots.js';

/**
 * Before any test file: the bundles of the programs the tests start (made once, kept while what
 * they are made of stays the same), the fixtures' startup snapshots (upstream-snapshots.ts), and their
 * code caches, serve's and the daemon's, each from a whole session (serve-warm-up.ts).
 * Serve's and the daemon's warm-ups start the packages as npm installed them, not the bundles, so
 * they run beside the bundling: on a fresh clone, one after the other took about 9 s of a run in
 * which no test file had started yet.
 */
export default async function setup(): Promise<() => Promise<void>> {
  // A warm-up that fails (no build yet, for a file that needs none) fails no test: serves then make their caches themselves.
  const warmUps = Promise.allSettled([warmServeCache(), warmDaemonCache()]);
  const pool = startUpstreamPool();
  try {
    await makeBundles(bundleSpecs([kit2025, kit2026]));
    await makeSnapshots();
    await warmUpstreamCaches().catch(() => undefined);
  } catch (error) {
    // A setup that fails returns no teardown: the pool is ended here.
    const endPool = await pool;
    await endPool();
    throw error;
  } finally {
    await warmUps;
  }
  return await pool;
}
