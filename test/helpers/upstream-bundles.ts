import { build, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The upstream servers the tests start, each bundled into one file: the npm reference servers and
 * the fixture servers that load the MCP SDK. The suite starts them about 1,500 times; a start that
 * resolves and compiles the SDK's hundreds of files took 0.21-0.26 CPU-s here, one bundled file
 * 0.11-0.14 (the same measurement scripts/build.mjs made for mcpkit itself). The code is the
 * packages' own, unchanged: each module still sees its own location (`import.meta.url`), so a
 * server that reads files beside its code (server-everything's instructions and docs) reads the
 * same files. test/unit/upstream-bundles.test.ts checks that a bundle answers as its package does.
 */
const ROOT = join(import.meta.dirname, '../..');

/** Entry files (relative to the repository), bundled under their base names. */
export const BUNDLED_ENTRIES = [
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
  'node_modules/@modelcontextprotocol/server-memory/dist/index.js',
  'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
  'test/fixtures/file-tools-server.mjs',
  'test/fixtures/relay-server.mjs',
  'test/fixtures/modern-server.mjs',
  'test/fixtures/tasks-server.mjs',
  'test/fixtures/github-standin.mjs',
] as const;
export type BundledEntry = (typeof BUNDLED_ENTRIES)[number];

/** Where the bundles are kept between runs (rebuilt when what they are made of changes). */
export const BUNDLE_DIR = join(ROOT, 'node_modules/.cache/mcpkit-test-upstreams');
const STAMP = 'made-of.txt';

/** The bundle's file name: the package's name for an npm server, the fixture's for a fixture. */
export function bundleName(entry: BundledEntry): string {
  const pkg = /@modelcontextprotocol\/([^/]+)\//.exec(entry);
  return `${pkg ? pkg[1] : entry.slice(entry.lastIndexOf('/') + 1).replace(/\.m?js$/, '')}.mjs`;
}

/**
 * The file to start for an entry: its bundle where one was made for this checkout (the suite's
 * global setup makes them), else the entry itself, which behaves the same, only starts slower.
 */
export function startable(entry: BundledEntry): string {
  const bundle = join(BUNDLE_DIR, bundleName(entry));
  return existsSync(bundle) ? bundle : join(ROOT, entry);
}

/** What the bundles are made of: the lock file (the packages' versions), the fixtures and this file. */
function madeOf(): string {
  const hash = createHash('sha256');
  for (const file of ['package-lock.json', 'test/helpers/upstream-bundles.ts', ...BUNDLED_ENTRIES.filter((e) => e.startsWith('test/'))])
    hash.update(file).update(readFileSync(join(ROOT, file)));
  return hash.digest('hex');
}

/**
 * Makes the bundles unless those in BUNDLE_DIR are made of the same files. They are made in a
 * folder of their own and moved into place whole, so a reader never sees half of them.
 */
export async function makeUpstreamBundles(): Promise<void> {
  const key = madeOf();
  if (readIfExists(join(BUNDLE_DIR, STAMP)) === key) return;
  mkdirSync(dirname(BUNDLE_DIR), { recursive: true });
  const scratch = mkdtempSync(`${BUNDLE_DIR}.`);
  try {
    for (const entry of BUNDLED_ENTRIES) {
      await build({
        absWorkingDir: ROOT,
        entryPoints: [join(ROOT, entry)],
        outfile: join(scratch, bundleName(entry)),
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'esm',
        logLevel: 'error',
        plugins: [ownLocation],
        // Bundled CommonJS calls require(); an ES module has none unless it makes one.
        banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
      });
    }
    writeFileSync(join(scratch, STAMP), key);
    chmodSync(scratch, 0o755);
    rmSync(BUNDLE_DIR, { recursive: true, force: true });
    renameSync(scratch, BUNDLE_DIR);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Each module keeps its own `import.meta.url` (and dirname, filename): that of its file on disk. */
const ownLocation: Plugin = {
  name: 'own-location',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta')) return undefined;
      const contents = text
        .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href))
        .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(dirname(args.path)))
        .replace(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path));
      return { contents, loader: 'js' };
    });
  },
};
