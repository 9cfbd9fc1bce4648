import { build, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './root.js';

/**
 * The programs the tests start most, each bundled into one file: the npm reference servers, the
 * fixture servers that load the MCP SDK, and the conformance suites' command. The suite starts
 * them some 800 times; a start that resolves and compiles a package's hundreds of files took
 * 0.21-0.26 CPU-s here (the conformance suite 0.45), one bundled file 0.11-0.14 (0.22): the same
 * measurement scripts/build.mjs made for mcpkit itself. The code is the packages' own, unchanged:
 * each module still sees its own location (`import.meta.url`), so a server that reads files beside
 * its code (server-everything's instructions and docs) reads the same files.
 * test/mcp/upstream-bundles.test.ts checks that a bundle answers as its package does.
 *
 * A bundle also starts from V8's code cache: what a start compiles (the file, and the functions a
 * start and a first listing run) is kept beside it, and the next start reads it instead of
 * compiling again. Measured here on server-everything (start, initialize, tools/list): 0.36 CPU-s
 * as an ES module, 0.21 from the cache, over some 800 starts a run. Node 20 keeps no cache for ES
 * modules, so the bundle's code is a CommonJS script (`NAME.body.cjs`, its ES module body run as
 * an async function, where top-level await still works) that a small loader (`NAME.cjs`, what the
 * tests start) compiles with the cache.
 */
/** What the fixtures' snapshots answer while they are built (upstream-snapshots.ts). */
const WARM_UP = 'test/fixtures/snapshot-warm-up.mjs';

/** Where the bundles are kept between runs, each remade when what it is made of changes. */
export const BUNDLE_DIR = join(ROOT, 'node_modules/.cache/mcpkit-test-bundles');

/** Entry files in this repository, bundled under their base names. */
export const BUNDLED_ENTRIES = [
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
  'node_modules/@modelcontextprotocol/server-memory/dist/index.js',
  'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
  'test/fixtures/file-tools-server.mjs',
  'test/fixtures/relay-server.mjs',
  'test/fixtures/modern-server.mjs',
  'test/fixtures/tasks-server.mjs',
  // server-everything's stdio start, the script of its startup snapshot (upstream-snapshots.ts).
  'test/fixtures/everything-stdio.mjs',
] as const;
export type BundledEntry = (typeof BUNDLED_ENTRIES)[number];

/** A program to bundle: its entry file, and the files whose content decides whether a bundle is current. */
export interface BundleSpec {
  name: string;
  entry: string;
  madeOf: string[];
  /** A change to one module's text, made as it is bundled (it must be found): see SERVER_MEMORY_START. */
  edit?: { file: string; from: string; to: string };
}

/**
 * server-memory's module as the script of its startup snapshot (upstream-snapshots.ts): the package
 * builds its server as its module loads and starts it with its last statement, which connects
 * stdio; in this bundle that statement hands its start to V8 while a snapshot is built (to run at
 * each start from it) and runs it at once otherwise. Nothing else of the package changes: its
 * start (main) reads MEMORY_FILE_PATH when it runs, as before.
 */
const MEMORY_ENTRY = 'node_modules/@modelcontextprotocol/server-memory/dist/index.js';
export const SERVER_MEMORY_START: BundleSpec = {
  name: 'server-memory-start',
  entry: join(ROOT, MEMORY_ENTRY),
  madeOf: [join(ROOT, 'package-lock.json'), join(ROOT, MEMORY_ENTRY), join(ROOT, WARM_UP)],
  edit: {
    file: join(ROOT, MEMORY_ENTRY),
    from: '\nmain().catch((error) => {',
    // Handed over as the fixtures hand theirs (snapshot-warm-up.mjs handStartToSnapshot, imported as __handStart).
    to: '\n(__v8.startupSnapshot?.isBuildingSnapshot() ? (start) => ({ catch: (fail) => void __handStart(() => void start().catch(fail)) }) : (start) => start())(main).catch((error) => {',
  },
};

/** The bundle's name: the package's for an npm server, the file's for a fixture. */
export function bundleName(entry: BundledEntry): string {
  const pkg = /@modelcontextprotocol\/([^/]+)\//.exec(entry);
  return pkg ? pkg[1]! : entry.slice(entry.lastIndexOf('/') + 1).replace(/\.m?js$/, '');
}

const bundleFile = (name: string) => join(BUNDLE_DIR, `${name}.cjs`);
/** The bundle's code, which its loader (bundleFile) compiles with V8's code cache. */
const bodyFile = (name: string) => join(BUNDLE_DIR, `${name}.body.cjs`);

/**
 * The file to start for an entry: its bundle where one was made for this checkout (the suite's
 * global setup makes them), else the entry itself, which behaves the same, only starts slower.
 */
export function startable(entry: BundledEntry): string {
  const bundle = bundleFile(bundleName(entry));
  return existsSync(bundle) ? bundle : join(ROOT, entry);
}

/** The conformance kit's suite command (KIT/node_modules/@modelcontextprotocol/conformance), bundled where it could be. */
export function startableSuite(kit: string): string {
  const bundle = bundleFile(suiteBundleName(kit));
  return existsSync(bundle) ? bundle : suiteEntry(kit);
}

/** The suite's command as its kit installs it. */
export const suiteEntry = (kit: string) => join(kit, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const suiteBundleName = (kit: string) => `conformance-${createHash('sha256').update(resolve(kit)).digest('hex').slice(0, 12)}`;

/** The fixtures a fixture imports (`from './NAME.mjs'`). */
function fixturesImported(entry: string): string[] {
  const text = readFileSync(join(ROOT, entry), 'utf8');
  return [...text.matchAll(/from '\.\/([\w.-]+\.mjs)'/g)].map((m) => join(ROOT, 'test/fixtures', m[1]!));
}

/** What the global setup bundles: this repository's entries, and the suite of each kit that is installed. */
export function bundleSpecs(kits: string[]): BundleSpec[] {
  // A fixture is made of the fixtures it imports too (the session its snapshot's build answers,
  // test/fixtures/snapshot-warm-up.mjs; file-tools.mjs), one level deep, as they import no fixture.
  const own = (entry: string) => [join(ROOT, 'package-lock.json'), join(ROOT, entry), ...(entry.startsWith('test/fixtures/') ? fixturesImported(entry) : [])];
  return [
    ...BUNDLED_ENTRIES.map((entry) => ({ name: bundleName(entry), entry: join(ROOT, entry), madeOf: own(entry) })),
    ...kits
      .filter((kit) => existsSync(suiteEntry(kit)) && existsSync(join(kit, 'package-lock.json')))
      .map((kit) => ({ name: suiteBundleName(kit), entry: suiteEntry(kit), madeOf: [join(kit, 'package-lock.json'), suiteEntry(kit)] })),
  ];
}

/**
 * Makes each bundle that is missing or made of other files than now. A bundle is written beside
 * its place and renamed into it, so that a reader never sees half of one.
 */
export async function makeBundles(specs: BundleSpec[]): Promise<void> {
  mkdirSync(BUNDLE_DIR, { recursive: true });
  // Each file read once: every bundle of this repository is made of its lock file too.
  const contents = new Map<string, Buffer>();
  const read = (file: string) => contents.get(file) ?? contents.set(file, readFileSync(file)).get(file)!;
  // Side by side: esbuild's service builds them on both cores, and a fresh clone's run waits for them.
  // Each is let finish (or fail, its scratch file removed) before a failure is thrown.
  const made = await Promise.allSettled(specs.map((spec) => makeBundle(spec, read)));
  const failed = made.find((m): m is PromiseRejectedResult => m.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Makes one bundle, unless the one there is made of what it is made of now. */
async function makeBundle(spec: BundleSpec, read: (file: string) => Buffer): Promise<void> {
  const hash = createHash('sha256').update(read(import.meta.filename));
  for (const file of spec.madeOf) hash.update(file).update(read(file));
  const key = hash.digest('hex');
  const stamp = join(BUNDLE_DIR, `${spec.name}.cjs.made-of`);
  if (existsSync(bundleFile(spec.name)) && existsSync(bodyFile(spec.name)) && readIfExists(stamp) === key) return;
  const scratch = `${bundleFile(spec.name)}.${process.pid}.tmp`;
  try {
    const built = await build({
      entryPoints: [spec.entry],
      outfile: scratch,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      // Without comments and spaces, so that it is ASCII (asciiOnly says why). Names stay as
      // written: stack traces read as the package's.
      minifyWhitespace: true,
      legalComments: 'none',
      charset: 'ascii',
      logLevel: 'error',
      metafile: true,
      plugins: [ownLocation(spec.edit), builtinsByRequire],
    });
    const output = Object.values(built.metafile.outputs)[0];
    // What it require()s or import()s a script can too; an import statement it cannot run.
    const statements = output?.imports.filter((i) => i.kind === 'import-statement') ?? [];
    if (statements.length) throw new Error(`bundle ${spec.name} imports, which a script cannot: ${JSON.stringify(statements).slice(0, 200)}`);
    writeFileSync(scratch, asciiOnly(spec.name, asScriptBody(spec.name, readFileSync(scratch, 'utf8'), (output?.exports.length ?? 0) > 0)));
    // V8 takes a cache for any source of the same length: the old body's would run the old code.
    for (const cache of readdirSync(BUNDLE_DIR).filter((f) => f.startsWith(`${spec.name}.body.cjs.`) && f.endsWith('.v8cache')))
      rmSync(join(BUNDLE_DIR, cache), { force: true });
    renameSync(scratch, bodyFile(spec.name));
    writeFileSync(scratch, LOADER);
    renameSync(scratch, bundleFile(spec.name));
    writeFileSync(stamp, key);
  } finally {
    rmSync(scratch, { force: true });
  }
}

/** A file's text, or undefined where there is none to read. */
export function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Each module keeps its own `import.meta.url` (and dirname, filename): that of its file on disk.
 * `edit`: a change to one module's text (BundleSpec), its `from` found or the bundle not made.
 */
function ownLocation(edit?: BundleSpec['edit']): Plugin {
  return {
    name: 'own-location',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        let text = readFileSync(args.path, 'utf8');
        const edited = edit?.file === args.path;
        if (edited) {
          if (!text.includes(edit.from))
            throw new Error(`${args.path} has no ${JSON.stringify(edit.from)} to change: the package changed; see SERVER_MEMORY_START`);
          // The edit's `to` names node:v8 as __v8 and the fixtures' handStartToSnapshot as __handStart: imported at the
          // module's top (an import is hoisted anyway), after its #! line.
          const top = text.startsWith('#!') ? text.indexOf('\n') + 1 : 0;
          const imports = `import __v8 from 'node:v8';\nimport { handStartToSnapshot as __handStart } from ${JSON.stringify(join(ROOT, WARM_UP))};\n`;
          text = `${text.slice(0, top)}${imports}${text.slice(top).replace(edit.from, edit.to)}`;
        }
        if (!edited && !text.includes('import.meta')) return undefined;
        const contents = text
          .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href))
          .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(dirname(args.path)))
          .replace(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path));
        return { contents, loader: 'js' };
      });
    },
  };
}

/**
 * Node's own modules, required: the bundle then has no import statement left, and its code can
 * run as a CommonJS script (the `require` it is given is the loader's, made for its file).
 */
const builtinsByRequire: Plugin = {
  name: 'builtins-by-require',
  setup(b) {
    const builtin = new Set(builtinModules);
    b.onResolve({ filter: /^(node:)?[a-z0-9_/]+$/ }, (args) => {
      if (!args.path.startsWith('node:') && !builtin.has(args.path)) return undefined;
      // The stand-in's own require() is of the real module.
      return args.namespace === 'node-builtin' ? { path: args.path, external: true } : { path: args.path, namespace: 'node-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

/**
 * An ES module bundle as the body of an async function: a module's scope is a function's, strict,
 * and `await` at its top level still waits. A rejection there ends the process as an ES module's
 * does (an uncaught error, exit code 1).
 */
function asScriptBody(name: string, bundle: string, exports: boolean): string {
  let code = bundle.startsWith('#!') ? bundle.slice(bundle.indexOf('\n') + 1) : bundle;
  // A program's exports have no reader: esbuild writes them as one statement at the end.
  if (exports) {
    const statement = /[;}\n]export ?\{[^}]*\};?\s*$/.exec(code);
    if (!statement) throw new Error(`bundle ${name} exports, and not in one statement at its end, which a script cannot`);
    code = code.slice(0, statement.index + 1);
  }
  // Every module's own import.meta became its location (ownLocation); one left would not parse.
  if (/\bimport\.meta\b/.test(code)) throw new Error(`bundle ${name}: import.meta is left in it, which a script cannot read`);
  return `(async () => {\n'use strict';\n${code}\n})().catch((error) => process.nextTick(() => { throw error; }));\n`;
}

/**
 * The script, checked to be ASCII: esbuild escapes every other character outside comments, and the
 * packages' comments hold a few (an em dash, "invàlid"), which is why the bundle is built without
 * them. V8 keeps a script's source for as long as it runs, as one string of one byte a character
 * only when every character fits in one, else of two: one dash in a comment doubled the 1.5 MB
 * that server-everything's snapshot keeps. Measured here on its snapshot (start, initialize,
 * tools/list): 8.8 MB of blob and 208 CPU-ms a start with the comments, 7.0 MB and 176 without,
 * over some 600 starts a run.
 */
function asciiOnly(name: string, script: string): string {
  // Longer in UTF-8 than in characters: a character outside ASCII is left.
  if (Buffer.byteLength(script) !== script.length) throw new Error(`bundle ${name} kept a character outside ASCII after its comments were removed`);
  return script;
}

/**
 * What the tests start: compiles the bundle's body with V8's code cache, kept beside it for this
 * V8 (made once: a second after a start, when the start and the first requests have compiled what
 * they run, or at exit if that comes first; written whole, then renamed).
 */
const LOADER = `#!/usr/bin/env node
'use strict';
const { existsSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { createRequire, wrap } = require('node:module');
const { dirname } = require('node:path');
const { Script, constants } = require('node:vm');
const body = __filename.replace(/\\.cjs$/, '.body.cjs');
const cache = body + '.' + process.versions.v8 + '.v8cache';
let cachedData;
try { cachedData = readFileSync(cache); } catch {}
// import() inside the body as in a module; a Node 20 before 20.12 has no such constant, and runs without.
const dynamic = constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
const script = new Script(wrap(readFileSync(body, 'utf8')), { filename: body, cachedData, ...(dynamic ? { importModuleDynamically: dynamic } : {}) });
if (cachedData === undefined || script.cachedDataRejected) {
  let kept = false;
  const keep = () => {
    if (kept || (cachedData === undefined && existsSync(cache))) return;
    kept = true;
    try {
      const scratch = cache + '.' + process.pid;
      writeFileSync(scratch, script.createCachedData());
      renameSync(scratch, cache);
    } catch {}
  };
  setTimeout(keep, 1000).unref();
  process.once('exit', keep);
}
process.argv.splice(1, 1, body);
script.runInThisContext()(module.exports, createRequire(body), module, body, dirname(body));
`;
