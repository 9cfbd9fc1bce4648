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
  type BigIntStats,
  type Stats,
} from 'node:fs';
import { isAscii } from 'node:buffer';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import {
  cacheFileName,
  cacheKey,
  cachesToPrune,
  codeCachePlace,
  isPrivateDir,
  isPrivateFile,
  scriptHash,
  userCacheRoot,
  type PathFacts,
  type Place,
  type ScriptIdentity,
} from './code-cache-place.js';

/** An entry's exports, and what keeps its code cache. */
export interface LoadedEntry {
  exports: Record<string, unknown>;
  /** Called once the entry took the command: from then on a cache is made (see loadEntry). */
  keep: () => void;
  /** Called once the start has run what its sessions run (serve: its first tools/call answered). */
  warm: () => void;
}

/**
 * Loads an entry of dist/cli from its script form (`NAME.script.cjs`, written by
 * scripts/build-scripts.mjs) with V8's code cache; as its ES module (`module`, from dist/cli:
 * `NAME.js` unless its source is elsewhere, as the daemon's is) when the cache is
 * turned off, source maps are on or the script cannot be read. Node 20 caches no ES module, and
 * compiling serve's modules was 13-16% of its start, more with the functions a start compiles as
 * it runs them; a cache made after start-up holds those too. The script is the entry bundled as
 * CommonJS; this compiles it in a function (module scope, strict, as an ES module's), with
 * `import.meta.url` and `import()` of a file given by this module.
 *
 * The cache is made once, where code-cache-place.ts allows, and only from a start the entry took
 * (`keep`): `serve --help` goes on to oclif having compiled little, and a cache V8 takes is kept
 * for good. It holds the functions compiled when it is made, and a function it lacks is compiled
 * again at every later start: so it is made a second after the start is `warm` (serve: its first
 * call answered, when listing, pinning, scanning and calling have run), at a successful exit, or
 * WARM_AT_LATEST_MS after `keep`, whichever comes first. Made a second after `keep`, as it was, a
 * loaded machine's first serve had not yet answered initialize: every later serve of the build
 * compiled the rest again, ~80 ms CPU of a 0.6 s session (bench/serve-once-cpu.mjs). Written
 * whole, then renamed, so processes starting together never read half of one. A cache V8 rejects
 * (another V8, a damaged file) is replaced the same way. Nothing here fails a start: without a
 * cache the script compiles as any script does. `MCPKIT_DEBUG_CODE_CACHE=1` says on stderr what
 * happened (never stdout: serve speaks MCP there).
 */
export async function loadEntry(entry: string, module = `./${entry}.js`): Promise<LoadedEntry> {
  const body = fileURLToPath(new URL(`./${entry}.script.cjs`, import.meta.url));
  // A person debugging gets the modules their source maps are for (Node maps no vm script's stack).
  const off = process.env.MCPKIT_CODE_CACHE === 'off' ? 'MCPKIT_CODE_CACHE=off' : sourceMapsOn() ? 'source maps are on' : undefined;
  const read = off === undefined ? readScript(body) : { why: off };
  if ('text' in read) return runCachedScript(entry, body, read);
  say(`${entry} not cached: ${read.why}; running its ES module`);
  const exports = (await import(new URL(module, import.meta.url).href)) as Record<string, unknown>;
  return { exports, keep: () => {}, warm: () => {} };
}

function sourceMapsOn(): boolean {
  const on = (process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled; // Node >= 20.7
  return on ?? [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes('--enable-source-maps');
}

type ScriptRead = { text: string; identity: ScriptIdentity } | { why: string };

/**
 * The script's text and the file it came from, stat'd before and after the read through the same
 * descriptor (an edit during the read is seen). Any failure, a build or an install that left the
 * script out among them, runs the ES modules instead.
 */
function readScript(body: string): ScriptRead {
  let fd: number | undefined;
  try {
    fd = openSync(body, constants.O_RDONLY);
    const before = fstatSync(fd, { bigint: true });
    if (!before.isFile()) return { why: `${body} is not a file` };
    const bytes = readFileSync(fd);
    // The build keeps each script ASCII (test/unit/script-ascii.test.ts), whose text is its bytes: no
    // UTF-8 decoding of 4-5 MB at every start (~3 ms CPU here). Any other is decoded as before.
    const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    const identity = identityOf(before);
    if (!sameIdentity(identity, identityOf(fstatSync(fd, { bigint: true })))) return { why: `${body} changed while it was read` };
    return { text, identity };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { why: code === 'ENOENT' ? `${body} is missing` : `${body} could not be read (${code ?? (error as Error).message})` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const identityOf = (s: BigIntStats): ScriptIdentity => ({ dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs });
const sameIdentity = (a: ScriptIdentity, b: ScriptIdentity): boolean =>
  a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;

function runCachedScript(entry: string, body: string, read: { text: string; identity: ScriptIdentity }): LoadedEntry {
  const { text } = read;
  const hash = scriptHash(text.slice(0, text.indexOf('\n')));
  const place: Place = hash ? cachePlace(dirname(body)) : { why: `${body} has no build hash on its first line` };
  const key = cacheKey({ execArgv: process.execArgv, nodeOptions: process.env.NODE_OPTIONS }, read.identity);
  const file = place.dir === undefined ? undefined : join(place.dir, cacheFileName(entry, hash!, process.versions.v8, key));
  const cachedData = file === undefined ? undefined : readPrivateFile(file);
  // The wrapper ends line 1, which is the build's comment: the script's lines keep their numbers.
  const script = new Script(`${WRAPPER}${text}\n})`, { filename: body, cachedData });
  const taken = cachedData !== undefined && !script.cachedDataRejected;
  say(`${entry} ${place.dir === undefined ? `not cached: ${place.why}` : taken ? `taken from ${file}` : cachedData ? `rejected: ${file}` : `absent: ${file}`}`);
  const keeper = file !== undefined && !taken ? keeperOf(script, file, entry) : { keep: () => {}, warm: () => {} };
  const module = { exports: {} as Record<string, unknown> };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, createRequire(body), module, body, dirname(body), pathToFileURL(body).href, importFile);
  return { exports: module.exports, ...keeper };
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

/** The latest a kept start's cache is made when it never gets `warm` (a serve that lists and never calls) and does not end. */
const WARM_AT_LATEST_MS = 60_000;

/**
 * What writes the cache once: a second after `warm`, WARM_AT_LATEST_MS after `keep`, or at exit if
 * that comes first and the process succeeded (`warm` before `keep` is not heard). A start that
 * failed (a config that does not load) compiled little: its cache would make every later start
 * compile the rest again. Making it pauses the thread (~0.1 s, up to ~0.5 s on a loaded machine),
 * once for each build, Node and flags: V8 makes it on no other thread.
 */
function keeperOf(script: Script, file: string, entry: string): Pick<LoadedEntry, 'keep' | 'warm'> {
  let armed = false;
  let warmed = false;
  let kept = false;
  const write = () => {
    if (kept) return;
    kept = true;
    writeCache(script, file, entry);
  };
  return {
    keep: () => {
      if (armed) return;
      armed = true;
      setTimeout(write, WARM_AT_LATEST_MS).unref();
      process.once('exit', (code) => {
        if (code === 0) write();
      });
    },
    warm: () => {
      if (!armed || warmed) return;
      warmed = true;
      // A second on: the session's next requests, as a client sends them after its first call, compile their paths too.
      setTimeout(write, 1000).unref();
    },
  };
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
  } catch (error) {
    rmSync(scratch, { force: true });
    say(`${entry} not written: ${(error as Error).message}`);
    return;
  }
  // On its own: the cache is written whatever becomes of the old ones.
  try {
    prune(dirname(file), entry, basename(file));
  } catch (error) {
    say(`${entry} old caches not pruned: ${(error as Error).message}`);
  }
}

/** Deletes old caches of the entry; only plain files (a folder of that name is not ours to remove). */
function prune(dir: string, entry: string, written: string): void {
  const files = readdirSync(dir).flatMap((name) => {
    try {
      const s = lstatSync(join(dir, name));
      return s.isFile() ? [{ name, mtimeMs: s.mtimeMs }] : [];
    } catch {
      return [];
    }
  });
  for (const name of cachesToPrune(files, entry, written, Date.now())) rmSync(join(dir, name), { force: true });
}
