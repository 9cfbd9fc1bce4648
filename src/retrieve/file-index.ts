import { statfsSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { confirmPlace, readInto, releaseRead, type ReadHolder } from './read-into.js';
import type { Root } from './roots.js';
import { TextCache, type Cached } from './text-cache.js';
import { buildTrigrams } from './patterns/trigrams.js';
import { FolderWatcher } from './folder-watcher.js';
import { walkFiles, type LeftOutReason } from './walk.js';

/**
 * What a long-running process (`serve`) remembers between searches of one root: the walked file
 * list, and per file what its last read found (binary, the trigrams of its text, and a copy of the
 * text while the cache has room). Nothing is trusted without a reason to:
 *
 * - Where the folders can be watched (inotify through `fs.watch`, one watch per walked folder),
 *   the watcher's silence is the reason: an event in a folder marks the file it names as changed,
 *   and a file created, removed or renamed there, or a .gitignore changed, means walking again.
 *   A search first lets pending events in (FileIndexes.caughtUp), so an edit made before the
 *   request is seen by it.
 * - Until the watches are set up, and where they cannot be (a network file system, too many
 *   folders, the kernel's limit reached), every folder and rule file the walk saw is stat-ed before
 *   each use (any change means a new walk), and each file before its facts are used (a different
 *   size, mtime or inode means reading it again).
 *
 * Like git's index, anything modified within RACY_MS of being recorded is not trusted: file times
 * are coarse (a clock tick), so a second change in the same tick would not show.
 */
export const RACY_MS = 2000;

/** Most bytes of file text kept in memory per process (text-cache.ts). */
export const CACHE_BYTES = 128 * 1024 * 1024;
/** Trigram filters are built for files up to this size (larger ones are always read). */
const FILTER_FILE_MAX = 16 * 1024 * 1024;
/** More folders than this are not watched (each is one inotify watch; the default limit is often 8192-65536 per user). */
export const MAX_WATCHED_FOLDERS = 50_000;

export interface IndexedFile extends Cached {
  rel: string;
  abs: string;
  /** Identity of the content the remembered facts were taken from; size -1 when none. */
  size: number;
  mtimeMs: number;
  ino: number;
  binary: boolean;
  /** Trigram filter of the text (see trigrams.ts); absent when unknown. */
  trigrams?: Uint32Array;
  /** The index that listed it (whose watcher may vouch for it). */
  owner?: RootIndex;
}

interface Watched {
  path: string;
  mtimeMs: number;
  ino: number;
}

function identity(path: string): Watched {
  const stats = statSync(path, { throwIfNoEntry: false });
  return { path, mtimeMs: stats ? stats.mtimeMs : -1, ino: stats ? stats.ino : -1 };
}

export function sameFile(entry: IndexedFile, stats: Stats): boolean {
  return entry.size === stats.size && entry.mtimeMs === stats.mtimeMs && entry.ino === stats.ino;
}

/** Forgets everything remembered of a file's content (it changed, or may have). */
function forget(entry: IndexedFile): void {
  entry.size = -1;
  entry.trigrams = undefined;
  entry.content = undefined;
  entry.used = 0;
}

/**
 * Records what a read of `stats`'s content found, unless the content is too fresh to vouch for;
 * returns whether it did. The trigram filter and cached copy of new content come later (later()).
 */
export function remember(entry: IndexedFile, stats: Stats, facts: { binary: boolean }, now = Date.now()): boolean {
  forget(entry);
  if (stats.mtimeMs >= now - RACY_MS) return false;
  entry.size = stats.size;
  entry.mtimeMs = stats.mtimeMs;
  entry.ino = stats.ino;
  entry.binary = facts.binary;
  return true;
}

/** File systems whose changes made elsewhere inotify never hears of (statfs f_type). */
const REMOTE_FS = new Set([
  0x6969 /* nfs */, 0x517b /* smb */, 0xff534d42 /* cifs */, 0xfe534d42 /* smb2 */, 0x65735546 /* fuse */, 0x5346414f /* afs */, 0x01021997 /* 9p */,
]);

function watchable(path: string): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return !REMOTE_FS.has(Number(statfsSync(path).type));
  } catch {
    return false;
  }
}

export class RootIndex {
  private files: IndexedFile[] | undefined;
  /** Entries the last walk left out, by reason (walk.ts). */
  leftOut: Record<LeftOutReason, number> = { path_too_long: 0, name_not_utf8: 0 };
  private byAbs = new Map<string, IndexedFile>();
  private watched: Watched[] = [];
  /** Folders above the root holding rule files of its work tree. */
  private outerFolders = new Set<string>();
  private walkedAt = 0;
  private readonly watcher: FolderWatcher | undefined;
  /** The watcher saw a file created, removed or renamed, or a rule file change: walk again. */
  private dirty = false;

  constructor(
    readonly root: Root,
    readonly hidden: boolean,
    watch: boolean,
  ) {
    this.watcher = watch && watchable(root.path) ? new FolderWatcher((folder, type, name) => this.changed(folder, type, name)) : undefined;
  }

  /** Which round of watches the remembered facts were checked against (see list). */
  private verified = -1;

  /** Files listed by the last walk. */
  get size(): number {
    return this.files?.length ?? 0;
  }

  /** Whether the watcher (set up, checked against, and silent about this file) vouches that its facts still hold. */
  vouchesFor(entry: IndexedFile): boolean {
    return entry.size >= 0 && !this.dirty && this.watcher?.ready === true && this.verified === this.watcher.generation;
  }

  /** How this index learns of changes: watching; stat-ing until the watches are set up; or stat-ing for good (and why). */
  get mode(): { mode: 'watching' | 'starting' | 'stat'; reason?: string } {
    if (!this.watcher) return { mode: 'stat', reason: 'not watched (not Linux, or a network file system)' };
    if (this.watcher.failed) return { mode: 'stat', reason: this.watcher.failed };
    return { mode: this.watcher.ready ? 'watching' : 'starting' };
  }

  private changed(folder: string, type: string, name: string | null): void {
    if (this.outerFolders.has(folder)) {
      // A folder above the root is watched for its rule file alone (the work tree's .gitignore).
      if (name === null || name === '.gitignore' || name === 'exclude') this.dirty = true;
      return;
    }
    if (name === null) {
      this.dirty = true;
      for (const entry of this.files ?? []) forget(entry);
      return;
    }
    const abs = `${folder}/${name}`;
    const entry = this.byAbs.get(abs);
    if (entry) forget(entry);
    if (type === 'rename' || name === '.gitignore' || name === 'exclude') this.dirty = true;
  }

  /**
   * Whether the last walk still stands. Watching, the watcher's word decides; but a change made
   * while the watches were being set up was heard by no one, so the first time they are all in
   * place every folder and file is stat-ed once more, and from then on only events count.
   */
  private stillValid(): boolean {
    if (!this.files) return false;
    const watcher = this.watcher;
    if (watcher?.ready) {
      if (this.dirty) return false;
      if (this.verified === watcher.generation) return true;
      if (!this.statsUnchanged()) return false;
      for (const entry of this.files) {
        if (entry.size < 0) continue;
        const stats = statSync(entry.abs, { throwIfNoEntry: false });
        if (!stats || !sameFile(entry, stats)) forget(entry);
      }
      this.verified = watcher.generation;
      return true;
    }
    return this.statsUnchanged();
  }

  private statsUnchanged(): boolean {
    return this.watched.every((w) => {
      if (w.mtimeMs >= this.walkedAt - RACY_MS) return false;
      const now = identity(w.path);
      return now.mtimeMs === w.mtimeMs && now.ino === w.ino;
    });
  }

  /** The root's files in walk order, walking again when anything the last walk saw has changed. */
  list(): IndexedFile[] {
    if (this.stillValid()) return this.files!;
    const known = this.byAbs;
    const files: IndexedFile[] = [];
    const watched: Watched[] = [];
    const folders: string[] = [];
    const outer = new Set<string>();
    const leftOut = { path_too_long: 0, name_not_utf8: 0 };
    this.dirty = false;
    this.walkedAt = Date.now();
    walkFiles(
      this.root,
      {
        hidden: this.hidden,
        watch: (path, folder) => {
          watched.push(identity(path));
          if (folder) folders.push(path);
          else if (!path.startsWith(`${this.root.path}/`)) outer.add(dirname(path));
        },
        leftOut: (reason) => void leftOut[reason]++,
      },
      (rel, abs) => {
        files.push(known.get(abs) ?? { rel, abs, size: -1, mtimeMs: 0, ino: 0, binary: false, owner: this });
        return true;
      },
    );
    this.files = files;
    this.leftOut = leftOut;
    this.byAbs = new Map(files.map((f) => [f.abs, f]));
    this.watched = watched;
    if (this.watcher) {
      const info = `${this.root.path}/.git/info`;
      this.outerFolders = new Set([...outer].filter((folder) => statSync(folder, { throwIfNoEntry: false })?.isDirectory()));
      const extra = [...(statSync(info, { throwIfNoEntry: false })?.isDirectory() ? [info] : []), ...this.outerFolders];
      if (folders.length > MAX_WATCHED_FOLDERS) this.watcher.stop(`${folders.length} folders (more than ${MAX_WATCHED_FOLDERS})`);
      else this.watcher.watch([...folders, ...extra]);
    }
    return files;
  }

  close(): void {
    this.watcher?.stop('closed');
  }
}

/**
 * One process's indexes, by root path and whether dotfiles are included, and the cache of file
 * text they share. Trigram filters and cached copies are made in the background, in slices of a
 * few milliseconds between requests: for a whole tree that took ~0.3 s here, which the first
 * search should not wait for.
 */
export class FileIndexes {
  private readonly byKey = new Map<string, RootIndex>();
  private readonly queue: IndexedFile[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly holder: ReadHolder = { buffer: Buffer.allocUnsafe(64 * 1024) };
  private idle: (() => void)[] = [];
  private readonly cache: TextCache;
  private readonly watch: boolean;

  constructor(options: { watch?: boolean; cacheBytes?: number } = {}) {
    this.watch = options.watch ?? false;
    this.cache = new TextCache(options.cacheBytes ?? CACHE_BYTES);
  }

  of(root: Root, hidden: boolean): RootIndex {
    const key = `${hidden ? 'h' : '-'}${root.path}${root.withheld ? `\0${root.withheld.key}` : ''}`;
    let index = this.byKey.get(key);
    if (!index) this.byKey.set(key, (index = new RootIndex(root, hidden, this.watch)));
    return index;
  }

  /** Whether a watcher vouches for the entry's facts (no stat needed). */
  vouchesFor(entry: IndexedFile): boolean {
    return entry.owner?.vouchesFor(entry) === true;
  }

  /** Each root's index: how many files it lists and how it learns of changes (the daemon's status). */
  roots(): { root: string; files: number; mode: string; reason?: string }[] {
    return [...this.byKey.values()].map((index) => ({ root: index.root.path, files: index.size, ...index.mode }));
  }

  /** Memory kept (cached text, in bytes), and how many files still wait for their filter or copy (0: searches run at full speed). */
  memory(): { text_bytes: number; cache_bytes: number; pending_files: number } {
    return { text_bytes: this.cache.live(), cache_bytes: this.cache.allocated, pending_files: this.queue.length - this.head };
  }

  /**
   * Lets file-system events that arrived with the request in first, so that an edit made before a
   * search is seen by it (both wake the same poll; the event's callback may come second).
   */
  caughtUp(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** Builds the entry's trigram filter, or keeps a copy of its text, soon (skipped if it changed meanwhile). */
  later(entry: IndexedFile): void {
    this.queue.push(entry);
    this.timer ??= setTimeout(() => this.work(), 0).unref();
  }

  /** A new search's number, by which the cache knows what searches use (text-cache.ts). */
  nextSearch(): number {
    return this.cache.next();
  }

  /**
   * Search `search` had to read this unchanged file from disk: its text is worth a place in the
   * cache, even at the cost of text no later search used (text-cache.ts). Copied soon, off the
   * request's path, like a filter.
   */
  wanted(entry: IndexedFile, search: number): void {
    entry.used = search;
    if (entry.content || entry.binary || entry.size < 0 || !this.cache.mayKeep(entry, entry.size)) return;
    this.later(entry);
  }

  /** Resolves once nothing is waiting to be filtered or cached, and every watcher is set up (for tests and benchmarks). */
  async settled(): Promise<void> {
    if (this.head < this.queue.length) await new Promise<void>((resolve) => this.idle.push(resolve));
    for (const index of this.byKey.values()) while (index.mode.mode === 'starting') await new Promise((r) => setTimeout(r, 10));
  }

  close(): void {
    for (const index of this.byKey.values()) index.close();
  }

  private work(): void {
    this.timer = undefined;
    const until = performance.now() + SLICE_MS;
    while (this.head < this.queue.length && performance.now() < until) {
      const entry = this.queue[this.head++]!;
      if (entry.binary || entry.size < 0) continue;
      const filter = !entry.trigrams && entry.size <= FILTER_FILE_MAX;
      const copy = !entry.content && this.cache.mayKeep(entry, entry.size);
      if (!filter && !copy) continue;
      const stats = statSync(entry.abs, { throwIfNoEntry: false });
      if (!stats || !sameFile(entry, stats)) continue;
      let len: number;
      try {
        len = readInto(entry.abs, this.holder, entry.size);
      } catch {
        continue;
      }
      // A file rewritten between the stat and the read may differ; the next search reads it anyway.
      if (len !== entry.size) continue;
      // A copy is shown without reading again, so it must come from where the walk listed it.
      if (copy && confirmPlace(this.holder)) this.cache.keep(entry, this.holder.buffer, len);
      // Kept text is searched without a read, but the filter still spares most files a search at all.
      if (filter) entry.trigrams = buildTrigrams(this.holder.buffer, len);
    }
    releaseRead(this.holder);
    if (this.head < this.queue.length) {
      this.timer = setTimeout(() => this.work(), 0).unref();
      return;
    }
    this.queue.length = 0;
    this.head = 0;
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

const SLICE_MS = 8;
