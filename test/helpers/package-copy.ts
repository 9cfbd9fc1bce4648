import { chmodSync, cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from './cli.js';

/**
 * The built package in a folder of its own (bin/run.js, package.json, dist/ without source maps
 * or code caches), its node_modules the repository's: what a start writes beside its code lands
 * here, not in the dist the rest of the suite runs from. Removed with the test file's folders.
 */
export function packageCopy(): string {
  const root = tempDir('mcpkit-package-');
  mkdirSync(join(root, 'bin'));
  cpSync(join(ROOT, 'bin/run.js'), join(root, 'bin/run.js'));
  cpSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  cpSync(join(ROOT, 'dist'), join(root, 'dist'), { recursive: true, filter: (from) => !/\.(map|v8cache|tmp)$/.test(from) });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  // As an install is, whatever this machine's umask: the user's alone (a folder others may write keeps no cache).
  chmodSync(join(root, 'dist/cli'), 0o755);
  return root;
}
