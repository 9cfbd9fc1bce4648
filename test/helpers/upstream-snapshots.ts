import { execFile } from 'node:child_process';
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BUNDLE_DIR, bundleName, readIfExists, startable, type BundledEntry } from './upstream-bundles.js';

/**
 * Fixture servers started from a V8 startup snapshot (`node --snapshot-blob BLOB ARGS`): the heap of
 * their loaded modules, the MCP SDK's schemas among them, which a start from the bundle builds again
 * each time. Measured here (start, initialize, tools/list; 10 starts each, interleaved): the
 * file-tools fixture 240 ms CPU from its bundle and V8's code cache, 143 from its snapshot; the suite
 * starts it some 180 times.
 *
 * Only a fixture written for it is snapshotted: its module body loads its modules and, while the
 * snapshot is built (`v8.startupSnapshot.isBuildingSnapshot()`), hands V8 the function a start
 * runs, which reads the arguments and the environment and opens stdio itself. Nothing is read of
 * either before it: what a module computes as it loads is the snapshot's, the same at every start.
 * An npm server runs as it loads (server-everything connects stdio in its module body), so none is.
 * The snapshot is made of the bundle's body (upstream-bundles.ts) and named after this Node: one
 * made of another body or for another Node is never started, and a start without one runs the bundle.
 */
export const SNAPSHOTTED: readonly BundledEntry[] = ['test/fixtures/file-tools-server.mjs'];

const blobOf = (name: string) => join(BUNDLE_DIR, `${name}.${process.versions.node}-${process.arch}.blob`);
/** What a blob was made of: the key of its bundle (upstream-bundles.ts writes it beside the bundle). */
const bundleKey = (name: string) => readIfExists(join(BUNDLE_DIR, `${name}.cjs.made-of`));
const blobKey = (name: string) => readIfExists(`${blobOf(name)}.made-of`);

/** Makes the snapshot of each snapshotted bundle that has none of its body, after makeBundles. */
export async function makeSnapshots(): Promise<void> {
  for (const entry of SNAPSHOTTED) {
    const name = bundleName(entry);
    const key = bundleKey(name);
    if (key === undefined || (existsSync(blobOf(name)) && blobKey(name) === key)) continue;
    const scratch = `${blobOf(name)}.${process.pid}.tmp`;
    try {
      // The body itself is the snapshot's entry: a script whose require() is Node's, as --build-snapshot asks.
      await promisify(execFile)(process.execPath, ['--snapshot-blob', scratch, '--build-snapshot', join(BUNDLE_DIR, `${name}.body.cjs`)], {
        cwd: BUNDLE_DIR,
        timeout: 60_000,
      });
      renameSync(scratch, blobOf(name));
      writeFileSync(`${blobOf(name)}.made-of`, key);
    } catch (error) {
      // A fixture that cannot be snapshotted still starts, from its bundle: say so, and fail nothing.
      console.error(`no startup snapshot of ${name} (it starts from its bundle): ${String(error).slice(0, 500)}`);
    } finally {
      rmSync(scratch, { force: true });
    }
  }
}

/**
 * The arguments that start a fixture (after `node`), before its own: its snapshot's where one was
 * made of its current bundle, else the bundle (or the file) as `startable` gives it.
 */
export function startArgs(entry: BundledEntry): string[] {
  const name = bundleName(entry);
  const key = SNAPSHOTTED.includes(entry) ? blobKey(name) : undefined;
  if (key !== undefined && key === bundleKey(name) && existsSync(blobOf(name))) return ['--snapshot-blob', blobOf(name)];
  return [startable(entry)];
}
