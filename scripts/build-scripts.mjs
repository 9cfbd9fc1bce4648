// The script form of the entries mcpkit starts most (`mcpkit serve`'s fast path): one CommonJS
// file each, which src/cli/cached-script.ts compiles with V8's code cache. Node 20 keeps no cache
// for ES modules; measured here (bench/serve-once-cpu.mjs's session, 12 runs interleaved) a serve's
// start to exit took 1244 ms CPU from the split ES module build, 1212 from its script form without
// a cache, 763 with it.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { oclifHookSources } from './oclif-hook-sources.mjs';

/**
 * Entries built as scripts, each to dist/cli/NAME.script.cjs (beside the loader, and one folder
 * below dist/ as every module of the split build, so `import.meta.url` finds package.json and
 * build.json as from any of them): serve's fast path, and the daemon, which `daemon start` and
 * `daemon: auto` start before a user's command is answered (src/daemon/server/entry.ts).
 */
export const SCRIPT_ENTRIES = [
  { source: 'src/cli/serve-fast-path.ts', name: 'serve-fast-path' },
  { source: 'src/daemon/server/daemon-main.ts', name: 'daemon-server' },
  // Every other command, through oclif (bin/run.js): measured, interleaved, CPU of a whole command
  // from the split build against this: `config path` 300 -> 230 ms, `server list` 400 -> 300,
  // `call` of an upstream's tool (its start included) 530 -> 360, `--version` level.
  { source: 'src/cli/main.ts', name: 'cli-main' },
];

/** The first line of each script: the loader names the cache after this hash. */
const PLACEHOLDER = `// mcpkit-script ${'0'.repeat(16)}`;

/**
 * Builds each script and their loader; `common` and `external` are the split build's, `oclifPlugin`
 * its patches of @oclif/core (with oclif's imports of dist/ files taken from the script), and
 * `commandFiles` the sources of oclif's commands.
 */
export async function buildScripts(root, common, external, { oclifPlugin, commandFiles }) {
  // The loader on its own, not split: one module to load before the script (a shared chunk was a second).
  await build({ ...common, entryPoints: ['src/cli/cached-script.ts'], outfile: join(root, 'dist/cli/cached-script.js'), format: 'esm', sourcemap: 'linked' });
  for (const { source: entry, name } of SCRIPT_ENTRIES) {
    const outfile = join(root, 'dist/cli', `${name}.script.cjs`);
    const built = await build({
      ...common,
      entryPoints: [entry],
      outfile,
      format: 'cjs',
      // import() of a package or built-in becomes require() (a vm script has no import() of its own);
      // the one import() of a file, a hook's, is the loader's (importModulePlugin).
      supported: { 'dynamic-import': false },
      // Found at run time beside the script's place: dist/cli, as the split build's entries are.
      define: { 'import.meta.url': '__mcpkitModuleUrl' },
      // oclif finds its own folder with require.resolve (build.mjs oclifDirnamePlugin): at run time, from the script's.
      external: [...external, '@oclif/core/package.json'],
      plugins: [importModulePlugin, bundledModulesPlugin(root, commandFiles), oclifPlugin, ansisAsciiPlugin],
      banner: { js: PLACEHOLDER },
      sourcemap: 'linked',
      metafile: true,
    });
    const text = readFileSync(outfile, 'utf8');
    const output = built.metafile.outputs[Object.keys(built.metafile.outputs).find((k) => k.endsWith('.cjs'))];
    const left = output.imports.filter((i) => i.kind === 'dynamic-import' || i.kind === 'import-statement');
    if (left.length) throw new Error(`${name}.script.cjs imports, which a script cannot: ${JSON.stringify(left).slice(0, 300)}`);
    if (!text.startsWith(`${PLACEHOLDER}\n`)) throw new Error(`${name}.script.cjs does not start with its hash line`);
    // Same length as the placeholder: the source map's columns and lines still hold.
    const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
    writeFileSync(outfile, `// mcpkit-script ${hash}${text.slice(PLACEHOLDER.length)}`);
  }
}

/**
 * The modules oclif loads by their file (package.json's commands and hooks), bundled into the
 * script that runs oclif (the daemon's: the lines it runs through oclif, remote-command.ts): its
 * oclif imports them from here (oclifDirnamePlugin's `withBundledImports` in build.mjs), each
 * evaluated on its first use, so that the script holds the only copy of every module the daemon
 * runs. A file of dist/ the script does not hold fails, as a missing file would; any other
 * (oclif's plugins in node_modules) is the loader's real import().
 */
function bundledModulesPlugin(root, commandFiles) {
  // The hooks package.json names (where oclif reads them): one the script lacked would fail in it alone.
  const hooks = oclifHookSources(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).oclif);
  const missing = hooks.filter((source) => !existsSync(join(root, source)));
  if (missing.length) throw new Error(`package.json's oclif hooks have no source: ${missing.join(', ')}`);
  const rows = [...commandFiles, ...hooks].map((source) => {
    const built = source.replace(/^src\//, '').replace(/\.ts$/, '.js');
    return `  ${JSON.stringify(built)}: () => import(${JSON.stringify(join(root, source))}),`;
  });
  const contents = `const modules = {\n${rows.join('\n')}\n};
const dist = new URL('../', __mcpkitModuleUrl).href;
export function importFile(url) {
  if (!url.startsWith(dist)) return __mcpkitImport(url);
  // An own key only: a file named like Object's members (constructor, toString) is not in the script.
  const file = url.slice(dist.length);
  const load = Object.hasOwn(modules, file) ? modules[file] : undefined;
  return load ? load() : Promise.reject(Object.assign(new Error(\`Cannot find module \${url}: not in the script\`), { code: 'MODULE_NOT_FOUND' }));
}
`;
  return {
    name: 'bundled-modules',
    setup(b) {
      b.onResolve({ filter: /^mcpkit:bundled-modules$/ }, () => ({ path: 'bundled-modules', namespace: 'mcpkit' }));
      b.onLoad({ filter: /.*/, namespace: 'mcpkit' }, () => ({ contents, loader: 'js', resolveDir: root }));
    },
  };
}

/** src/core/import-module.ts, as the script sees it: the loader's import() (src/cli/cached-script.ts). */
const importModulePlugin = {
  name: 'import-module',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]core[\\/]import-module\.ts$/ }, () => ({
      contents: 'export const importModule = (url) => __mcpkitImport(url);',
      loader: 'js',
    }));
  },
};

/**
 * ansis (oclif's colours) has a raw U+009B in a regular expression literal, which esbuild writes as
 * it is (it escapes what is outside ASCII in strings and templates, not in a pattern). One such
 * character makes V8 hold the whole script, 4-5 MB, as two-byte text decoded at every start
 * (measured on serve's script: ~40 ms CPU a session). `\u009b` means the same in the pattern.
 * test/unit/script-ascii.test.ts keeps every script ASCII.
 */
const ansisAsciiPlugin = {
  name: 'ansis-ascii',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]ansis[\\/]index\.js$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll('\u009b', '\\u009b'),
      loader: 'js',
    }));
  },
};
