import { chmodSync, cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from './cli.js';
import { linkTree } from './link-tree.js';

/** What a package copy keeps of dist: neither source maps nor code caches (nor a cache's scratch file). */
const kept = (path: string) => !/\.(map|v8cache|tmp)$/.test(path);

/**
 * The built package in a folder of its own (bin/run.js, package.json, dist/ without source maps
 * or code caches), its node_modules the repository's: what a start writes beside its code lands
 * here, not in the dist the rest of the suite runs from. Removed with the test file's folders.
 *
 * With `linkModules`, the files of dist/chunks and dist/commands (~440 small ES modules) are hard
 * links to the build's, at the same paths in the copy: creating a file is most of a copy's cost
 * here (~0.5 CPU-s a copy, ~0.1 with the links). Only for a test that writes none of those files:
 * a write through a link changes the build the suite runs. dist/cli is always copied (a cache's
 * key is its script's inode and times, which a link would share with the build's). Where a link
 * cannot be made, a copy (./link-tree.ts).
 */
export function packageCopy(options: { linkModules?: boolean } = {}): string {
  const root = tempDir('mcpkit-package-');
  mkdirSync(join(root, 'bin'));
  cpSync(join(ROOT, 'bin/run.js'), join(root, 'bin/run.js'));
  cpSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  const linked = options.linkModules ? ['chunks', 'commands'] : [];
  cpSync(join(ROOT, 'dist'), join(root, 'dist'), { recursive: true, filter: (from) => kept(from) && !linked.some((dir) => from === join(ROOT, 'dist', dir)) });
  for (const dir of linked) linkTree(join(ROOT, 'dist', dir), join(root, 'dist', dir), kept);
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  // As an install is, whatever this machine's umask: the user's alone (a folder others may write keeps no cache).
  chmodSync(join(root, 'dist/cli'), 0o755);
  return root;
}
