import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import {
  cacheFileName,
  cachesToPrune,
  codeCachePlace,
  isPrivateDir,
  isPrivateFile,
  scriptHash,
  userCacheRoot,
  type PathFacts,
  type Place,
} from './code-cache-place.js';

/**
 * Loads an entry of dist/cli from its script form (`NAME.script.cjs`, written by
 * scripts/build-scripts.mjs) with V8's code cache; as the ES module `NAME.js` when the cache is
 * turned off, source maps are on or the script is missing. Node 20 caches no ES module, and
 * compiling serve's modules was 13-16% of its start, more with the functions a start compiles as
 * it runs them; a cache made after start-up holds those too. The script is the entry bundled as
 * CommonJS; this compiles it in a function (module scope, strict, as an ES module's), with
 * `import.meta.url` and `import()` of a file given by this module. Returns the entry's exports.
 *
 * The cache is made once, where code-cache-place.ts allows: a second after start (start-up's
 * compiled functions in it), or at a successful exit if that comes first; written whole, then
 * renamed, so processes starting together never read half of one. A cache V8 rejects (another
 * V8, other flags, a damaged file) is replaced the same way. Nothing here fails a start: without
 * a cache the script compiles as any script does. `MCPKIT_DEBUG_CODE_CACHE=1` says on stderr what
 * happened (never stdout: serve speaks MCP there).
 */
export async function loadEntry(entry: string): Promise<Record<string, unknown>> {
  // A person debugging gets the modules their source maps are for (Node maps no vm script's stack).
  const body = fileURLToPath(new URL(`./${entry}.script.cjs`, import.meta.url));
  const text = process.env.MCPKIT_CODE_CACHE === 'off' || sourceMapsOn() ? undefined : readIfThere(body);
  if (text !== undefined) return runCachedScript(entry, body, text);
  const why = process.env.MCPKIT_CODE_CACHE === 'off' ? 'MCPKIT_CODE_CACHE=off' : sourceMapsOn() ? 'source maps are on' : `${body} is missing`;
  say(`${entry} not cached: ${why}; running its ES module`);
  return (await import(new URL(`./${entry}.js`, import.meta.url).href)) as Record<string, unknown>;
}

function sourceMapsOn(): boolean {
  const on = (process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled; // Node >= 20.7
  return on ?? [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes('--enable-source-maps');
}

/** The script's text; undefined when a build or an install left it out (the ES modules run instead). */
function readIfThere(body: string): string | undefined {
  try {
    return readFileSync(body, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function runCachedScript(entry: string, body: string, text: string): Record<string, unknown> {
  const hash = scriptHash(text.slice(0, text.indexOf('\n')));
  const place: Place = hash ? cachePlace(dirname(body)) : { why: `${body} has no build hash on its first line` };
  const file = place.dir === undefined ? undefined : join(place.dir, cacheFileName(entry, hash!, process.versions.v8));
  const cachedData = file === undefined ? undefined : readPrivateFile(file);
  // The wrapper ends line 1, which is the build's comment: the script's lines keep their numbers.
  const script = new Script(`${WRAPPER}${text}\n})`, { filename: body, cachedData });
  const taken = cachedData !== undefined && !script.cachedDataRejected;
  say(`${entry} ${place.dir === undefined ? `not cached: ${place.why}` : taken ? `taken from ${file}` : cachedData ? `rejected: ${file}` : `absent: ${file}`}`);
  if (file !== undefined && !taken) keepWhenStarted(script, file, entry);
  const module = { exports: {} as Record<string, unknown> };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, createRequire(body), module, body, dirname(body), pathToFileURL(body).href, importFile);
  return module.exports;
}

/** Parameters the script's code reads: CommonJS's, then what the build put for import.meta.url and import(). */
const WRAPPER = "(function (exports, require, module, __filename, __dirname, __mcpkitModuleUrl, __mcpkitImport) {'use strict';";

/** import() as an ES module does it (a hook's module by its file URL); the script's own import() became require. */
const importFile = (specifier: string): Promise<unknown> => import(specifier);

function say(line: string): void {
  if (process.env.MCPKIT_DEBUG_CODE_CACHE === '1') process.stderr.write(`mcpkit code cache: ${line}\n`);
}

function cachePlace(codeDir: string): Place {
  const uid = process.getuid?.();
  const code = { path: codeDir, facts: uid === undefined ? undefined : facts(codeDir, statSync) };
  // The user's cache folder is made only when the code's own folder will not do.
  if (uid === undefined || isPrivateDir(code.facts, uid)) return codeCachePlace({ uid, codeDir: code });
  const root = userCacheRoot(process.env, safeHome());
  if (root === undefined) return codeCachePlace({ uid, codeDir: code });
  const dir = join(root, 'mcpkit', 'code-cache');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    /* judged below: a folder that is not there is no place */
  }
  return codeCachePlace({ uid, codeDir: code, userDir: { path: dir, facts: facts(dir, lstatSync), parent: facts(dirname(dir), lstatSync) } });
}

function safeHome(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}

function facts(path: string, stat: (p: string) => Stats): PathFacts | undefined {
  try {
    const s = stat(path);
    return { uid: s.uid, mode: s.mode, kind: kindOf(s), writable: isWritable(path) };
  } catch {
    return undefined;
  }
}

const kindOf = (s: Stats): PathFacts['kind'] => (s.isDirectory() ? 'dir' : s.isFile() ? 'file' : 'other');

function isWritable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The file's bytes when it is this user's alone (not followed through a link); else nothing. */
function readPrivateFile(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const s = fstatSync(fd);
    if (!isPrivateFile({ uid: s.uid, mode: s.mode, kind: kindOf(s), writable: false }, process.getuid!())) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes the cache once: a second after start, or at exit if that comes first and the process
 * succeeded. A cache is kept for good once V8 takes it, and a start that failed (a config that
 * does not load) compiled little: its cache would make every later start compile the rest again.
 */
function keepWhenStarted(script: Script, file: string, entry: string): void {
  let kept = false;
  const keep = () => {
    if (kept) return;
    kept = true;
    writeCache(script, file, entry);
  };
  setTimeout(keep, 1000).unref();
  process.once('exit', (code) => {
    if (code === 0) keep();
  });
}

function writeCache(script: Script, file: string, entry: string): void {
  const scratch = `${file}.${process.pid}.tmp`;
  try {
    const started = performance.now();
    const data = script.createCachedData();
    const took = performance.now() - started;
    writeFileSync(scratch, data, { mode: 0o600, flag: 'wx' });
    renameSync(scratch, file);
    say(`${entry} written: ${file} (${data.length} bytes, made in ${took.toFixed(0)} ms)`);
    prune(dirname(file), entry, basename(file));
  } catch (error) {
    rmSync(scratch, { force: true });
    say(`${entry} not written: ${(error as Error).message}`);
  }
}

function prune(dir: string, entry: string, written: string): void {
  const files = readdirSync(dir).flatMap((name) => {
    try {
      return [{ name, mtimeMs: lstatSync(join(dir, name)).mtimeMs }];
    } catch {
      return [];
    }
  });
  for (const name of cachesToPrune(files, entry, written, Date.now())) rmSync(join(dir, name), { force: true });
}
