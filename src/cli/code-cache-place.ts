/**
 * Where an entry's V8 code cache may be kept, read and replaced (cached-script.ts does the I/O).
 * A code cache is compiled code: V8 runs what it holds without checking it against the source
 * beyond its length, so whoever can write it can run code as the user who reads it. It is kept only
 * where no one but that user (and root) can write: beside the code when the user owns that folder,
 * else in the user's own cache folder, else nowhere.
 */

/** What lstat/stat and access say of a folder or file. */
export interface PathFacts {
  uid: number;
  mode: number;
  kind: 'dir' | 'file' | 'other';
  writable: boolean;
}

/** What decides the place: who runs, the code's folder, and the user's cache folder and its parent. */
export interface PlaceFacts {
  /** process.getuid(); undefined where there is no such thing (Windows): no owner to check, no cache. */
  uid: number | undefined;
  codeDir: { path: string; facts: PathFacts | undefined };
  /** `$XDG_CACHE_HOME/mcpkit/code-cache` (or `~/.cache/...`), after an attempt to make it (mode 0700); undefined when there is no such root. */
  userDir?: { path: string; facts: PathFacts | undefined; parent: PathFacts | undefined };
}

export type Place = { dir: string; where: 'beside the code' | 'in the user cache' } | { dir?: undefined; why: string };

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

/** A folder only this user (or root) can write into. */
export function isPrivateDir(facts: PathFacts | undefined, uid: number): boolean {
  return facts !== undefined && facts.kind === 'dir' && facts.uid === uid && (facts.mode & GROUP_OR_OTHER_WRITE) === 0 && facts.writable;
}

/**
 * The folder above the user's cache folder: no one else may rename that folder away and put
 * another in its place. Another user may write into it only when it is sticky (as /tmp is).
 */
export function isSafeParent(facts: PathFacts | undefined, uid: number): boolean {
  if (facts === undefined || facts.kind !== 'dir') return false;
  if (facts.uid !== uid && facts.uid !== 0) return false;
  return (facts.mode & GROUP_OR_OTHER_WRITE) === 0 || (facts.mode & STICKY) !== 0;
}

/** A cache file V8 may be given: a plain file of this user that no one else can write. */
export function isPrivateFile(facts: PathFacts, uid: number): boolean {
  return facts.kind === 'file' && facts.uid === uid && (facts.mode & GROUP_OR_OTHER_WRITE) === 0;
}

export function codeCachePlace(facts: PlaceFacts): Place {
  if (facts.uid === undefined) return { why: 'this platform has no file owners to check' };
  if (isPrivateDir(facts.codeDir.facts, facts.uid)) return { dir: facts.codeDir.path, where: 'beside the code' };
  const user = facts.userDir;
  if (!user) return { why: `${facts.codeDir.path} is not this user's alone, and there is no user cache folder (XDG_CACHE_HOME, HOME)` };
  if (isPrivateDir(user.facts, facts.uid) && isSafeParent(user.parent, facts.uid)) return { dir: user.path, where: 'in the user cache' };
  return { why: `neither ${facts.codeDir.path} nor ${user.path} is a folder only this user can write` };
}

/**
 * The root of the user's caches: XDG_CACHE_HOME when it is an absolute path (the spec ignores a
 * relative one), else ~/.cache.
 */
export function userCacheRoot(env: Readonly<Record<string, string | undefined>>, home: string | undefined): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && xdg.startsWith('/')) return xdg;
  return home && home.startsWith('/') ? `${home}/.cache` : undefined;
}

/**
 * The build writes the script's own hash on its first line. V8 would take a cache made for any
 * other source of the same length, so the cache's name carries that hash and the V8 version: a
 * rebuilt script, or another Node, never meets a cache made for something else.
 */
const HEADER = /^\/\/ mcpkit-script ([0-9a-f]{16})$/;

/** The hash on a script's first line; undefined when the line is not the build's. */
export function scriptHash(firstLine: string): string | undefined {
  return HEADER.exec(firstLine)?.[1];
}

export function cacheFileName(entry: string, hash: string, v8Version: string): string {
  return `${entry}.${hash}.${v8Version.replace(/[^0-9A-Za-z.-]/g, '_')}.v8cache`;
}

/** How many caches of one entry a folder keeps: one per build and Node in use, the newest. */
export const CACHES_KEPT = 4;

/**
 * The caches of an entry to delete when a new one is written: all but the newest few (another
 * install or another Node sharing the user's cache folder keeps its own), and leftovers of a
 * write that died before its rename.
 */
export function cachesToPrune(files: readonly { name: string; mtimeMs: number }[], entry: string, written: string, now: number): string[] {
  // Only names this loader writes: beside the code the folder also holds the code itself.
  const cache = new RegExp(`^${entry.replace(/[^0-9A-Za-z]/g, '\\$&')}\\.[0-9a-f]{16}\\.[0-9A-Za-z._-]+\\.v8cache$`);
  const ours = files.filter((f) => f.name !== written);
  const stale = ours.filter((f) => /\.\d+\.tmp$/.test(f.name) && cache.test(f.name.replace(/\.\d+\.tmp$/, '')) && now - f.mtimeMs > 60_000);
  const caches = ours.filter((f) => cache.test(f.name)).sort((a, b) => b.mtimeMs - a.mtimeMs);
  return [...stale.map((f) => f.name), ...caches.slice(CACHES_KEPT - 1).map((f) => f.name)];
}
