import { statSync, type Stats } from 'node:fs';
import { readInto, releaseRead } from './read-into.js';
import type { Root } from './roots.js';
import { buildTrigrams } from './trigrams.js';
import { walkFiles } from './walk.js';

/**
 * What a long-running process (`serve`) remembers between searches of one root: the walked file
 * list, and per file what its last read found (binary, or the trigrams of its text). Nothing is
 * trusted without a check: before each use, every folder and rule file the walk saw is stat-ed
 * (any change means a new walk), and search stats each file before using what it remembers
 * (a different size, mtime or inode means reading it again). Like git's index, anything
 * modified within RACY_MS of being recorded is not trusted: file times are coarse (a clock tick),
 * so a second change in the same tick would not show.
 */
export const RACY_MS = 2000;

export interface IndexedFile {
  rel: string;
  abs: string;
  /** Identity of the content the remembered facts were taken from; size -1 when none. */
  size: number;
  mtimeMs: number;
  ino: number;
  binary: boolean;
  /** Trigram filter of the text (see trigrams.ts); absent when unknown. */
  trigrams?: Uint32Array;
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

/**
 * Records what a read of `stats`'s content found, unless the content is too fresh to vouch for;
 * returns whether it did. The trigram filter of new content comes later (filterLater).
 */
export function remember(entry: IndexedFile, stats: Stats, facts: { binary: boolean }, now = Date.now()): boolean {
  entry.trigrams = undefined;
  if (stats.mtimeMs >= now - RACY_MS) {
    entry.size = -1;
    return false;
  }
  entry.size = stats.size;
  entry.mtimeMs = stats.mtimeMs;
  entry.ino = stats.ino;
  entry.binary = facts.binary;
  return true;
}

export class RootIndex {
  private files: IndexedFile[] | undefined;
  private watched: Watched[] = [];
  private walkedAt = 0;

  constructor(
    readonly root: Root,
    readonly hidden: boolean,
  ) {}

  private stillValid(): boolean {
    if (!this.files) return false;
    return this.watched.every((w) => {
      if (w.mtimeMs >= this.walkedAt - RACY_MS) return false;
      const now = identity(w.path);
      return now.mtimeMs === w.mtimeMs && now.ino === w.ino;
    });
  }

  /** The root's files in walk order, walking again when anything the last walk saw has changed. */
  list(): IndexedFile[] {
    if (this.stillValid()) return this.files!;
    const known = new Map((this.files ?? []).map((f) => [f.rel, f]));
    const files: IndexedFile[] = [];
    const watched: Watched[] = [];
    this.walkedAt = Date.now();
    walkFiles(this.root, { hidden: this.hidden, watch: (path) => watched.push(identity(path)) }, (rel, abs) => {
      files.push(known.get(rel) ?? { rel, abs, size: -1, mtimeMs: 0, ino: 0, binary: false });
      return true;
    });
    this.files = files;
    this.watched = watched;
    return files;
  }
}

/**
 * One process's indexes, by root path and whether dotfiles are included. Trigram filters are
 * built in the background, in slices of a few milliseconds between requests: building them for a
 * whole tree took ~0.3 s here, which the first search should not wait for.
 */
export class FileIndexes {
  private readonly byKey = new Map<string, RootIndex>();
  private readonly queue: IndexedFile[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly holder = { buffer: Buffer.allocUnsafe(64 * 1024) };
  private idle: (() => void)[] = [];

  of(root: Root, hidden: boolean): RootIndex {
    const key = `${hidden ? 'h' : '-'}${root.path}`;
    let index = this.byKey.get(key);
    if (!index) this.byKey.set(key, (index = new RootIndex(root, hidden)));
    return index;
  }

  /** Builds the entry's trigram filter soon, from its content as remembered (skipped if it changed). */
  filterLater(entry: IndexedFile): void {
    this.queue.push(entry);
    this.timer ??= setTimeout(() => this.work(), 0).unref();
  }

  /** Resolves once no filter is waiting to be built (for tests and benchmarks). */
  settled(): Promise<void> {
    return this.head >= this.queue.length ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }

  private work(): void {
    this.timer = undefined;
    const until = performance.now() + SLICE_MS;
    while (this.head < this.queue.length && performance.now() < until) {
      const entry = this.queue[this.head++]!;
      if (entry.trigrams || entry.binary || entry.size < 0) continue;
      const stats = statSync(entry.abs, { throwIfNoEntry: false });
      if (!stats || !sameFile(entry, stats)) continue;
      let len: number;
      try {
        len = readInto(entry.abs, this.holder, entry.size);
      } catch {
        continue;
      }
      // A file rewritten between the stat and the read may differ; the next search reads it anyway.
      if (len === entry.size) entry.trigrams = buildTrigrams(this.holder.buffer, len);
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
