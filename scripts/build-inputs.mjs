import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A key of everything a build is made of: the sources, the build's own scripts, the package and
 * lock files, what npm says it installed (the bundled dependencies' versions) and the TypeScript settings. The same key makes
 * the same dist/ and oclif.manifest.json, so a build whose key matches the last one's is skipped:
 * on a fresh clone `npm ci` builds (prepare) and `npm test` would build the same again, 8 s of
 * a 2-core machine before the first test.
 */
export function buildInputsKey(root) {
  const hash = createHash('sha256');
  const add = (file) =>
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(root, file)))
      .update('\0');
  for (const file of filesUnder(root, 'src')) add(file);
  for (const file of filesUnder(root, 'scripts').filter((f) => f.endsWith('.mjs'))) add(file);
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json']) add(file);
  // What is installed, which npm writes as it installs: the lock file alone can name other versions
  // than node_modules holds (a checkout before `npm ci`), and the bundles are made of node_modules.
  if (existsSync(join(root, 'node_modules/.package-lock.json'))) add('node_modules/.package-lock.json');
  return hash.digest('hex');
}

/** Every file under `dir` (relative to root), sorted: the key does not depend on directory order. */
function filesUnder(root, dir) {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath ?? entry.path, entry.name)
        .slice(root.length)
        .replace(/^\//, ''),
    )
    .sort();
}
