// Bundles the CLI entry and each command (and the modules tests spawn) with shared chunks.
// Measured here: loading the MCP SDK server from node_modules took ~300 ms, bundled ~125 ms; @oclif/core
// ~130 ms, bundled ~60 ms. Resolving and compiling hundreds of small files, not running them,
// dominates start-up. oclif itself is bundled so the commands extend the same Command class that runs them.
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withBuiltEngineCheck } from './oclif-engine-check.mjs';
import { buildInputsKey } from './build-inputs.mjs';
import { buildScripts } from './build-scripts.mjs';
import { withLazyRequires } from './oclif-lazy-requires.mjs';
import { withLiteralPluginNames } from './oclif-plugin-match.mjs';
import { REQUIRE_BANNER, withoutUnusedRequire } from './require-banner.mjs';

const root = new URL('..', import.meta.url).pathname;
const commandFiles = readdirSync(join(root, 'src/commands'), { recursive: true })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join('src/commands', f));
// Not commands, but loaded by tests in child processes (the config edit concurrency tests) and by benchmarks.
const extraEntries = [
  'src/cli/main.ts',
  'src/cli/global-flags.ts', // imported by bin/run.js only when a line starts with --config or --json
  'src/cli/not-found.ts',
  'src/cli/completion-hook.ts',
  'src/cli/serve-fast-path.ts',
  'src/cli/tool-fast-path.ts',
  'src/cli/complete-names-fast-path.ts',
  'src/cli/in-process.ts', // the conformance clients run their mcpkit commands in their own process
  'src/daemon/server/entry.ts', // what daemon start runs: the daemon without oclif (src/daemon/client/launch.ts)
  'src/daemon/server/daemon-main.ts', // the daemon itself, which entry.ts loads when its script form cannot be
  'src/config/edit.ts',
  'src/registry/truncate.ts',
  'src/code/sandbox-worker.ts', // started as a worker thread (code/sandbox.ts)
  'src/tools/index.ts',
];

/** What both outputs below share. */
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
};

// oclif loads a TypeScript compiler only in development (bin/dev.js); never bundle it.
// OpenTelemetry loads only when serve traces, from node_modules: one copy of its API for the SDK and us.
// QuickJS's WebAssembly file is found beside its own module (code mode's sandbox-worker.js loads it from node_modules).
// jq-web (--jq) finds its WebAssembly file beside its own module.
// The keyring is a native module (a .node file per platform), loaded from node_modules when a secret is read.
const external = ['typescript', 'ts-node', 'tsx', 'tsx/*', '@opentelemetry/*', '@jitl/*', 'jq-web', '@napi-rs/keyring'];

// A build of the same inputs as the last one is skipped (build-inputs.mjs); `--force` builds anyway.
const inputsKey = buildInputsKey(root);
const stampPath = join(root, 'dist/.made-of');
const built = (file) => existsSync(join(root, file));
let manifestChild;
// The stamp holds the manifest as this build wrote it too: a manifest put back by git (it is
// committed, outside dist/) is not taken for the one these sources make.
const stampOf = (manifest) =>
  `${inputsKey}\n${createHash('sha256')
    .update(manifest ?? '')
    .digest('hex')}\n`;
const stamped = readIfExists(stampPath);
if (!process.argv.includes('--force') && built('dist/build.json') && stamped === stampOf(readIfExists(join(root, 'oclif.manifest.json')))) {
  console.error('dist/ is built from these sources already (node scripts/build.mjs --force builds it again)');
  process.exit(0);
}
rmSync(join(root, 'dist'), { recursive: true, force: true });
// The builds below write files of their own and read only the sources: run together, esbuild keeps
// both cores busy and oclif's manifest (a process that loads every command) overlaps the script
// builds. One after another, a fresh clone's build took 8.5 s here, mostly waiting.
const splitBuild = build({
  ...common,
  entryPoints: [...commandFiles, ...extraEntries],
  outbase: 'src',
  outdir: 'dist',
  splitting: true,
  format: 'esm',
  external,
  plugins: [oclifDirnamePlugin()],
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  // Bundled CommonJS (ajv) calls require(); ESM has none unless we make one.
  banner: { js: REQUIRE_BANNER },
  metafile: true,
}).then((built) => {
  // Only this build's modules: the others are still being written.
  for (const output of Object.keys(built.metafile.outputs)) {
    if (!output.endsWith('.js')) continue;
    const path = join(root, output);
    const text = readFileSync(path, 'utf8');
    const trimmed = withoutUnusedRequire(text);
    if (trimmed !== text) writeFileSync(path, trimmed);
  }
});
// oclif.manifest.json lets help and dispatch run without importing every command. It is committed;
// a test fails when the committed copy differs from this one. Made from the split build's commands.
const manifestMade = splitBuild.then(
  () =>
    new Promise((resolve, reject) => {
      const child = (manifestChild = spawn(join(root, 'node_modules/.bin/oclif'), ['manifest'], {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true' }, // no registry look-up during a build
      }));
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve() : reject(new Error('oclif manifest failed'))));
    }),
);

await Promise.all([
  splitBuild,
  manifestMade,
  // A warm command's way to the daemon (bin/run.js), on its own and as CommonJS: it runs before
  // anything else, and each ES module of a split build, and each built-in module an ES module
  // imports, cost 2-3 ms to load here (31 ms in all, against 14 ms for this file).
  // Beside the other entries: build.json and package.json are found from here.
  buildCommonJs('src/daemon/client/fast-path.ts', 'dist/cli/daemon-fast-path.cjs'),
  // `daemon start|stop|status` without oclif (bin/run.js), on their own and as CommonJS for the same reason.
  buildCommonJs('src/cli/daemon-control-fast-path.ts', 'dist/cli/daemon-control.cjs'),
  // A search worker (retrieve/worker-search.ts, parallel-search.ts) as one CommonJS file of only what a
  // search needs: from the split build it loaded six chunks and what they import (YAML among them),
  // each compiled again in each worker, which cost a cold search's worker ~0.3 s before its first file.
  buildCommonJs('src/retrieve/search-worker.ts', 'dist/retrieve/search-worker.cjs', { sourcemap: 'linked' }),
  buildScripts(root, common, external, { oclifPlugin: oclifDirnamePlugin({ bundledImports: true }), commandFiles }),
]).catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  // A manifest still being made would write the committed file after the build said it failed.
  manifestChild?.kill();
  process.exit(1);
});

// What this build is: a daemon (mcpkit daemon) built from other code is never used by this one.
const hash = createHash('sha256');
for (const file of readdirSync(join(root, 'dist'), { recursive: true }).sort()) {
  if (!/\.c?js$/.test(String(file))) continue;
  hash.update(String(file));
  hash.update(readFileSync(join(root, 'dist', String(file))));
}
writeFileSync(join(root, 'dist/build.json'), `${JSON.stringify({ id: hash.digest('hex').slice(0, 16) })}\n`);

// oclif lists commands in directory order, which differs between two checkouts of the same
// tree; sorted, the committed manifest is the same wherever it is built.
const manifestPath = join(root, 'oclif.manifest.json');
const generated = JSON.parse(readFileSync(manifestPath, 'utf8'));
// oclif copies every static property of a command class into the manifest, and each line
// through oclif parses the manifest whole: the tool each command is made from (twice, as `tool`
// and `generatedFrom`), its field specs and flag sets are read from the class, never from here,
// and were two thirds of the file (960 KB; parsing it took 6.8 ms a line, 2.5 without them).
const CLASS_ONLY = ['tool', 'generatedFrom', 'specs', 'daemonFlags', 'fieldWords'];
const withoutClassOnly = (command) => Object.fromEntries(Object.entries(command).filter(([key]) => !CLASS_ONLY.includes(key)));
generated.commands = Object.fromEntries(
  Object.keys(generated.commands)
    .sort()
    .map((id) => [id, withoutClassOnly(generated.commands[id])]),
);
writeFileSync(manifestPath, `${JSON.stringify(generated, null, 2)}\n`);
// Last: a build that failed part way leaves no stamp, and the next one builds again.
writeFileSync(stampPath, stampOf(readFileSync(manifestPath, 'utf8')));

function readIfExists(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** One entry bundled on its own as CommonJS, its `import.meta.url` the file's own URL. */
function buildCommonJs(entry, outfile, extra = {}) {
  return build({
    ...common,
    entryPoints: [entry],
    outfile,
    format: 'cjs',
    define: { 'import.meta.url': '__mcpkitModuleUrl' },
    banner: { js: "const __mcpkitModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    ...extra,
  });
}

/**
 * oclif reads its own package.json via `__dirname`, which has no meaning inside an ESM bundle.
 * Point it at the installed @oclif/core (a runtime dependency, so it is always there).
 */
function oclifDirnamePlugin({ bundledImports = false } = {}) {
  return {
    name: 'oclif-dirname',
    setup(b) {
      b.onLoad({ filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/].*\.js$/ }, (args) => {
        const oclifRoot = args.path.slice(0, args.path.lastIndexOf('/@oclif/core/') + '/@oclif/core/'.length);
        const rel = args.path.slice(oclifRoot.length);
        const read = readFileSync(args.path, 'utf8');
        const patched =
          rel === 'lib/index.js'
            ? withBuiltEngineCheck(read, enginesNode(oclifRoot))
            : rel === 'lib/config/plugin-loader.js'
              ? withLiteralPluginNames(read)
              : read;
        const text = withLazyRequires(rel, bundledImports && rel === 'lib/module-loader.js' ? withBundledImports(patched) : patched);
        if (!/__dirname|__filename/.test(text)) return text === read ? undefined : { contents: text, loader: 'js' };
        const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
        const prelude =
          `var __oclifRoot = require('node:path').dirname(require.resolve('@oclif/core/package.json'));` +
          `var __dirname = require('node:path').join(__oclifRoot, ${JSON.stringify(dir)});` +
          `var __filename = require('node:path').join(__oclifRoot, ${JSON.stringify(rel)});`;
        return { contents: prelude + text, loader: 'js' };
      });
    },
  };
}

/**
 * In a script (scripts/build-scripts.mjs), oclif's import() of a command or hook file of dist/
 * takes the module bundled in the script (`mcpkit:bundled-modules`), and any other (a plugin's) is
 * the loader's real import(): a script has no import() of its own, and a command imported from
 * the split build would be a second copy of every module the script holds.
 */
function withBundledImports(text) {
  const call = 'import((0, node_url_1.pathToFileURL)(filePath).href)';
  const count = text.split(call).length - 1;
  if (count !== 3) throw new Error(`@oclif/core's module-loader.js has ${count} imports of a file, not the 3 the script's build replaces`);
  return text.replaceAll(call, "require('mcpkit:bundled-modules').importFile((0, node_url_1.pathToFileURL)(filePath).href)");
}

/** The Node range the bundled @oclif/core asks for (its check is built in: oclif-engine-check.mjs). */
function enginesNode(oclifRoot) {
  return JSON.parse(readFileSync(join(oclifRoot, 'package.json'), 'utf8')).engines.node;
}
