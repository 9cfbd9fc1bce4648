import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BUNDLE_DIR, bundleName, makeBundles, readIfExists, SERVER_MEMORY_START, startable, type BundledEntry } from './upstream-bundles.js';

/**
 * Servers started from a V8 startup snapshot (`node --snapshot-blob BLOB ARGS`): the heap of their
 * loaded modules, the MCP SDK's schemas among them, which a start from the bundle builds again each
 * time. Measured here (start, initialize, tools/list; interleaved): the file-tools fixture 240 ms CPU
 * from its bundle and V8's code cache, 143 from its snapshot (some 250 starts a run);
 * server-everything 190 from its bundle, 105 from its snapshot with a listing and a call (some 340).
 *
 * Only a script written for it is snapshotted: its module body loads its modules and, while the
 * snapshot is built (`v8.startupSnapshot.isBuildingSnapshot()`), hands V8 the function a start
 * runs, which reads the arguments and the environment and opens stdio itself. Nothing is read of
 * either before it: what a module computes as it loads is the snapshot's, the same at every start.
 * A fixture of ours is that script itself; an npm server runs as it loads (server-everything connects
 * stdio in its module body), so its snapshot's script is a fixture that starts it the way its own
 * start does (test/fixtures/everything-stdio.mjs); server-memory's is its own module with its last
 * statement, its start, handed to V8 (upstream-bundles.ts SERVER_MEMORY_START). The snapshot is made of the script's bundle body
 * (upstream-bundles.ts) and named after the server and this Node: one made of another body or for
 * another Node is never started, and a start without one runs the server's bundle.
 */
export const SNAPSHOTTED: ReadonlyMap<BundledEntry, string> = new Map<BundledEntry, string>([
  ['test/fixtures/file-tools-server.mjs', bundleName('test/fixtures/file-tools-server.mjs')],
  ['test/fixtures/relay-server.mjs', bundleName('test/fixtures/relay-server.mjs')],
  ['test/fixtures/tasks-server.mjs', bundleName('test/fixtures/tasks-server.mjs')],
  ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', bundleName('test/fixtures/everything-stdio.mjs')],
  ['node_modules/@modelcontextprotocol/server-memory/dist/index.js', SERVER_MEMORY_START.name],
]);

const blobOf = (name: string) => join(BUNDLE_DIR, `${name}.${process.versions.node}-${process.arch}.blob`);
/** What a blob was made of: the key of its script's bundle (upstream-bundles.ts writes it beside the bundle), and of how it is built (this file). */
const bundleKey = (script: string) => {
  const key = readIfExists(join(BUNDLE_DIR, `${script}.cjs.made-of`));
  return key === undefined ? undefined : `${key} ${BUILT_BY}`;
};
const BUILT_BY = createHash('sha256')
  .update(readFileSync(import.meta.filename))
  .digest('hex');
const blobKey = (name: string) => readIfExists(`${blobOf(name)}.made-of`);
const buildMsFile = (name: string) => `${blobOf(name)}.build-ms`;

/**
 * How long the build of an entry's snapshot took, in ms, its process's whole life: a due time its
 * timers kept (test/fixtures/snapshot-warm-up.mjs handStartToSnapshot) lies at most one cleared
 * timer's length later on its clock.
 */
export function snapshotBuildMs(entry: BundledEntry): number | undefined {
  const text = readIfExists(buildMsFile(bundleName(entry)));
  return text === undefined ? undefined : Number(text);
}

/** Makes the snapshot of each snapshotted server that has none of its script's body, after makeBundles (of the other scripts); side by side. */
export async function makeSnapshots(): Promise<void> {
  // server-memory's script is a bundle of the package with an edit (SERVER_MEMORY_START): one that
  // cannot be made (the package changed) leaves server-memory to start from its bundle, and says so.
  await makeBundles([SERVER_MEMORY_START]).catch((error: unknown) =>
    console.error(`no startup snapshot of server-memory (it starts from its bundle): ${String(error).slice(0, 500)}`),
  );
  await Promise.all([...SNAPSHOTTED].map(([entry, script]) => makeSnapshot(bundleName(entry), script)));
}

async function makeSnapshot(name: string, script: string): Promise<void> {
  const key = bundleKey(script);
  if (key === undefined || (existsSync(blobOf(name)) && blobKey(name) === key)) return;
  const scratch = `${blobOf(name)}.${process.pid}.tmp`;
  try {
    const began = Date.now();
    // The body itself is the snapshot's entry: a script whose require() is Node's, as --build-snapshot asks.
    await promisify(execFile)(process.execPath, ['--snapshot-blob', scratch, '--build-snapshot', join(BUNDLE_DIR, `${script}.body.cjs`)], {
      cwd: BUNDLE_DIR,
      timeout: 60_000,
      // What a module reads of the environment as it loads is the snapshot's at every start: none of this run's.
      env: process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {},
    });
    renameSync(scratch, blobOf(name));
    writeFileSync(buildMsFile(name), String(Date.now() - began));
    writeFileSync(`${blobOf(name)}.made-of`, key);
  } catch (error) {
    // A fixture that cannot be snapshotted still starts, from its bundle: say so, and fail nothing.
    console.error(`no startup snapshot of ${name} (it starts from its bundle): ${String(error).slice(0, 500)}`);
  } finally {
    rmSync(scratch, { force: true });
  }
}

/**
 * The arguments that start a server (after `node`), before its own: its snapshot's where one was
 * made of its current bundle, else the bundle (or the file) as `startable` gives it.
 */
export function startArgs(entry: BundledEntry): string[] {
  const name = bundleName(entry);
  const script = SNAPSHOTTED.get(entry);
  const key = script === undefined ? undefined : blobKey(name);
  if (script !== undefined && key !== undefined && key === bundleKey(script) && existsSync(blobOf(name))) return ['--snapshot-blob', blobOf(name)];
  return [startable(entry)];
}
