import { readSync, statSync, type Stats } from 'node:fs';
import { remember, sameFile, type FileIndexes, type IndexedFile } from './file-index.js';
import { countNewlines, lineText, type LineHit, type LineMatcher } from './line-matcher.js';
import { confirmPlace, readInto, releaseRead, type ReadHolder } from './read-into.js';
import { openListedFile } from './safe-open.js';
import type { Root } from './roots.js';
import { mayContain } from './trigrams.js';
import { walkFiles } from './walk.js';

/**
 * Content search over roots: walk in deterministic order (roots as configured, then path
 * byte-wise, then line), read each file synchronously into one reused buffer (files larger than
 * a block are read in blocks of whole lines, so a file of any size is searched in bounded
 * memory), skip binary files as ripgrep does (a NUL byte anywhere), and stop as soon as `limit`
 * matches are found. Nothing but the current file (or block) is held in memory, except what a
 * long-running process's index keeps (file-index.ts).
 */
export interface SearchMatch {
  repo: string;
  path: string;
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

export interface SearchOptions {
  matcher: LineMatcher;
  /** Most matches; Infinity for none (the terminal's --limit 0). */
  limit: number;
  context: number;
  hidden: boolean;
  /** Path filter inside a root (a compiled glob). */
  include?: (rel: string) => boolean;
  /** What a long-running process remembers of earlier walks and reads (serve); none for one-shot runs. */
  index?: FileIndexes;
  /** Trigrams every matching file contains (trigrams.ts), to skip files the index rules out. */
  trigrams?: readonly number[];
  /** Told of each match as it is found (the terminal streams an unlimited search). */
  onMatch?: (match: SearchMatch) => void;
}

export interface SearchOutcome {
  matches: SearchMatch[];
  truncated: boolean;
  files_searched: number;
  /** Files not searched, and why: binary (a NUL byte, as ripgrep decides). */
  skipped: { binary: number };
}

/** Files larger than this are read in blocks of whole lines (a longer line grows the block). */
export const BLOCK_BYTES = 16 * 1024 * 1024;
const MAX_LINE = 300;

function clip(text: string): string {
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
}

/**
 * A line as shown: only its start is decoded (a minified file's line can be megabytes, and a
 * slice of a decoded line would keep all of it alive), then cut to MAX_LINE characters.
 */
function shown(buf: Buffer, hit: LineHit): string {
  const end = hit.start + MAX_LINE * 4; // 4 bytes: the longest UTF-8 character
  if (hit.end <= end) return clip(lineText(buf, hit));
  return `${buf.toString('utf8', hit.start, end).slice(0, MAX_LINE - 1)}…`;
}

function contextLines(buf: Buffer, hit: LineHit, len: number, count: number): { before: string[]; after: string[] } {
  const before: string[] = [];
  let start = hit.start;
  while (before.length < count && start > 0) {
    const prevEnd = start - 1;
    const prevStart = buf.lastIndexOf(10, prevEnd - 1) + 1;
    before.unshift(shown(buf, { start: prevStart, end: prevEnd }));
    start = prevStart;
  }
  const after: string[] = [];
  let end = hit.end;
  while (after.length < count && end < len) {
    const nextStart = end + 1;
    if (nextStart >= len) break;
    let nextEnd = buf.indexOf(10, nextStart);
    if (nextEnd < 0 || nextEnd > len) nextEnd = len;
    after.push(shown(buf, { start: nextStart, end: nextEnd }));
    end = nextEnd;
  }
  return { before, after };
}

/** Each file of a root in walk order: from the index when there is one (checked for changes), else a fresh walk. */
export function eachFile(root: Root, hidden: boolean, index: FileIndexes | undefined, visit: (rel: string, abs: string, entry?: IndexedFile) => boolean): boolean {
  if (!index) return walkFiles(root, { hidden }, visit);
  for (const entry of index.of(root, hidden).list()) if (!visit(entry.rel, entry.abs, entry)) return false;
  return true;
}

export type TextFilter = (entry: IndexedFile) => boolean;

/**
 * One file's text into `holder.buffer` for smart_search (whole files up to `maxFileBytes`), or
 * why not. With an index entry, the file is stat-ed first (unless the index's watcher vouches for
 * it) and what the entry remembers of unchanged content is used: binary files and files that
 * `mayMatch` rules out are not read again. What a read finds is remembered.
 */
export function readCandidate(
  abs: string,
  entry: IndexedFile | undefined,
  holder: ReadHolder,
  maxFileBytes: number,
  mayMatch?: TextFilter,
  index?: FileIndexes,
): number | 'binary' | 'too_large' | 'no_match' | 'gone' {
  const known = entry ? knownFacts(abs, entry, index) : undefined;
  if (known === 'gone') return 'gone';
  if (known?.same) {
    if (entry!.binary) return 'binary';
    if (mayMatch && entry!.trigrams && !mayMatch(entry!)) return 'no_match';
  }
  if (known?.size !== undefined && known.size > maxFileBytes) return 'too_large';
  let len: number;
  try {
    len = readInto(abs, holder, maxFileBytes);
  } catch {
    return 'gone'; // vanished or unreadable: skip
  }
  if (len < 0) return 'too_large';
  const binary = holder.buffer.subarray(0, len).includes(0);
  if (entry && known && !known.same && known.stats) learned(entry, known.stats, binary, index);
  return binary ? 'binary' : len;
}

/**
 * What the index knows of a file now: whether its remembered facts still hold (`same`), from the
 * watcher's word when it has one, else from a stat (size, mtime and inode unchanged).
 */
function knownFacts(abs: string, entry: IndexedFile, index: FileIndexes | undefined): { same: boolean; size?: number; stats?: Stats } | 'gone' {
  if (index?.vouchesFor(entry)) return { same: true, size: entry.size };
  const stats = statSync(abs, { throwIfNoEntry: false });
  if (!stats?.isFile()) return 'gone';
  return { same: sameFile(entry, stats), size: stats.size, stats };
}

function learned(entry: IndexedFile, stats: Stats, binary: boolean, index: FileIndexes | undefined): void {
  // The trigram filter and the cached copy are made later, off the request's path (FileIndexes.later).
  if (remember(entry, stats, { binary }) && !binary) index?.later(entry);
}

/**
 * Reads a file in blocks of whole lines (all of it at once when it fits a block) and hands each
 * to `visit` with the number of lines before it; `visit` returns false once it wants no more
 * lines (the file is then only checked for NUL bytes, which make all of it binary). A NUL byte
 * anywhere makes the file binary, as ripgrep decides.
 */
export function scanFile(path: string, holder: ReadHolder, visit: (buf: Buffer, len: number, linesBefore: number) => boolean): 'searched' | 'binary' | 'gone' {
  releaseRead(holder);
  const fd = openListedFile(path);
  if (fd === undefined) return 'gone';
  holder.fd = fd;
  holder.path = path;
  let filled = 0;
  let linesBefore = 0;
  let wanted = true;
  for (;;) {
    let buf = holder.buffer;
    if (filled === buf.length) {
      // Grow while under a block (small files end up whole); past it, only for a line longer than a block.
      const bigger = Buffer.allocUnsafe(buf.length < BLOCK_BYTES ? Math.min(buf.length * 2, BLOCK_BYTES) : buf.length * 2);
      buf.copy(bigger, 0, 0, filled);
      holder.buffer = buf = bigger;
    }
    let n: number;
    try {
      n = readSync(fd, buf, filled, buf.length - filled, null);
    } catch {
      return 'gone';
    }
    if (n === 0) {
      if (filled === 0) return 'searched';
      if (buf.subarray(0, filled).includes(0)) return 'binary';
      if (wanted) visit(buf, filled, linesBefore);
      return 'searched';
    }
    filled += n;
    if (filled < buf.length || buf.length < BLOCK_BYTES) continue;
    // A full block: hand over its whole lines, keep the unfinished last one.
    const cut = buf.lastIndexOf(10, filled - 1) + 1;
    if (cut === 0) continue; // one line longer than the block: grow
    if (buf.subarray(0, cut).includes(0)) return 'binary';
    if (wanted) wanted = visit(buf, cut, linesBefore);
    linesBefore += countNewlines(buf, 0, cut);
    buf.copy(buf, 0, cut, filled);
    filled -= cut;
  }
}

/** The matches of one file's text (cached, or a block of it) beginning after `linesBefore` lines, at most `room`. */
function matchesIn(buf: Buffer, len: number, linesBefore: number, where: { repo: string; path: string }, matcher: LineMatcher, context: number, room: number, into: SearchMatch[]): boolean {
  const hits = matcher(buf, len);
  let lineNo = linesBefore + 1;
  let counted = 0;
  for (const hit of hits) {
    if (into.length >= room) return false;
    lineNo += countNewlines(buf, counted, hit.start);
    counted = hit.start;
    const match: SearchMatch = { repo: where.repo, path: where.path, line: lineNo, text: shown(buf, hit) };
    if (context > 0) Object.assign(match, contextLines(buf, hit, len, context));
    into.push(match);
  }
  return true;
}

interface FileResult {
  status: 'searched' | 'binary' | 'gone';
  /** Its matches (none for a binary file, or one whose place could not be confirmed). */
  found: SearchMatch[];
  /** More matches were left than `room` allowed. */
  cut: boolean;
}

/** Searches one file on disk, of any size. */
function searchFileOnDisk(abs: string, where: { repo: string; path: string }, holder: ReadHolder, matcher: LineMatcher, context: number, room: number): FileResult {
  const found: SearchMatch[] = [];
  let cut = false;
  const status = scanFile(abs, holder, (buf, len, linesBefore) => {
    if (matchesIn(buf, len, linesBefore, where, matcher, context, room, found)) return true;
    cut = true;
    return false;
  });
  if (status !== 'searched') return { status, found: [], cut: false };
  // Shown only if read from where it was listed (no folder on its way swapped for a symlink).
  if (found.length > 0 && !confirmPlace(holder)) return { status, found: [], cut: false };
  return { status, found, cut };
}

export function searchRoots(roots: readonly Root[], options: SearchOptions): SearchOutcome {
  const outcome: SearchOutcome = { matches: [], truncated: false, files_searched: 0, skipped: { binary: 0 } };
  const holder: ReadHolder = { buffer: Buffer.allocUnsafe(64 * 1024) };
  const required = options.trigrams;
  const mayMatch = required ? (entry: IndexedFile) => mayContain(entry.trigrams!, required) : undefined;
  const { index } = options;
  try {
    for (const root of roots) {
      const finished = eachFile(root, options.hidden, index, (rel, abs, entry) => {
        if (options.include && !options.include(rel)) return true;
        const where = { repo: root.name, path: `${root.name}/${rel}` };
        const room = options.limit - outcome.matches.length;
        const known = entry ? knownFacts(abs, entry, index) : undefined;
        if (known === 'gone') return true;
        if (known?.same) {
          if (entry!.binary) {
            outcome.skipped.binary++;
            return true;
          }
          if (mayMatch && entry!.trigrams && !mayMatch(entry!)) {
            outcome.files_searched++;
            return true;
          }
          const cached = entry!.content;
          if (cached) {
            // Copied into the cache only after its place was confirmed (file-index.ts).
            outcome.files_searched++;
            const found: SearchMatch[] = [];
            if (!matchesIn(cached, cached.length, 0, where, options.matcher, options.context, room, found)) outcome.truncated = true;
            return publish(found, outcome, options);
          }
        }
        const result = searchFileOnDisk(abs, where, holder, options.matcher, options.context, room);
        if (result.status === 'gone') return true;
        if (entry && known && !known.same && known.stats) learned(entry, known.stats, result.status === 'binary', index);
        if (result.status === 'binary') {
          outcome.skipped.binary++;
          return true;
        }
        outcome.files_searched++;
        if (result.cut) outcome.truncated = true;
        return publish(result.found, outcome, options);
      });
      if (!finished) break;
    }
  } finally {
    releaseRead(holder);
  }
  return outcome;
}

/** Adds a file's matches to the outcome; false once the limit is reached. */
function publish(found: SearchMatch[], outcome: SearchOutcome, options: SearchOptions): boolean {
  for (const match of found) {
    outcome.matches.push(match);
    options.onMatch?.(match);
  }
  return !outcome.truncated;
}

/** Files whose path inside their root matches, in the same deterministic order. */
export function findFiles(
  roots: readonly Root[],
  include: (rel: string) => boolean,
  options: { limit: number; hidden: boolean; index?: FileIndexes },
): { files: { repo: string; path: string }[]; truncated: boolean } {
  const files: { repo: string; path: string }[] = [];
  let truncated = false;
  for (const root of roots) {
    const finished = eachFile(root, options.hidden, options.index, (rel) => {
      if (!include(rel)) return true;
      if (files.length === options.limit) {
        truncated = true;
        return false;
      }
      files.push({ repo: root.name, path: `${root.name}/${rel}` });
      return true;
    });
    if (!finished) break;
  }
  return { files, truncated };
}
