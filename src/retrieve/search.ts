import { statSync, type Stats } from 'node:fs';
import { remember, sameFile, type FileIndexes, type IndexedFile } from './file-index.js';
import { countNewlines, lineText, type LineHit, type LineMatcher } from './line-matcher.js';
import { confirmPlace, readInto, releaseRead, type ReadHolder } from './read-into.js';
import type { Root } from './roots.js';
import { mayContain } from './trigrams.js';
import { walkFiles } from './walk.js';

/**
 * Content search over roots: walk in deterministic order (roots as configured, then path
 * byte-wise, then line), read each file synchronously into one reused buffer, skip binary files
 * (a NUL in the first 8 KiB) and files over the size limit, and stop as soon as `limit` matches
 * are found. Nothing but the current file is held in memory.
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
  limit: number;
  context: number;
  maxFileBytes: number;
  hidden: boolean;
  /** Path filter inside a root (a compiled glob). */
  include?: (rel: string) => boolean;
  /** What a long-running process remembers of earlier walks and reads (serve); none for one-shot runs. */
  index?: FileIndexes;
  /** Trigrams every matching file contains (trigrams.ts), to skip files the index rules out. */
  trigrams?: readonly number[];
}

export interface SearchOutcome {
  matches: SearchMatch[];
  truncated: boolean;
  files_searched: number;
  skipped: { binary: number; too_large: number };
}

const MAX_LINE = 300;

function clip(text: string): string {
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
}

function contextLines(buf: Buffer, hit: LineHit, len: number, count: number): { before: string[]; after: string[] } {
  const before: string[] = [];
  let start = hit.start;
  while (before.length < count && start > 0) {
    const prevEnd = start - 1;
    const prevStart = buf.lastIndexOf(10, prevEnd - 1) + 1;
    before.unshift(clip(lineText(buf, { start: prevStart, end: prevEnd })));
    start = prevStart;
  }
  const after: string[] = [];
  let end = hit.end;
  while (after.length < count && end < len) {
    const nextStart = end + 1;
    if (nextStart >= len) break;
    let nextEnd = buf.indexOf(10, nextStart);
    if (nextEnd < 0 || nextEnd > len) nextEnd = len;
    after.push(clip(lineText(buf, { start: nextStart, end: nextEnd })));
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
 * One file's text into `holder.buffer`, or why not. With an index entry, the file is stat-ed
 * first and what the entry remembers of unchanged content is used: binary files and files that
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
  let stats: Stats | undefined;
  let known = false;
  if (entry) {
    stats = statSync(abs, { throwIfNoEntry: false });
    if (!stats?.isFile()) return 'gone';
    if (stats.size > maxFileBytes) return 'too_large';
    known = sameFile(entry, stats);
    if (known) {
      if (entry.binary) return 'binary';
      if (mayMatch && entry.trigrams && !mayMatch(entry)) return 'no_match';
    }
  }
  let len: number;
  try {
    len = readInto(abs, holder, maxFileBytes);
  } catch {
    return 'gone'; // vanished or unreadable: skip
  }
  if (len < 0) return 'too_large';
  const binary = holder.buffer.subarray(0, Math.min(len, 8192)).includes(0);
  // The trigram filter is built later, off the request's path (FileIndexes.filterLater).
  if (entry && stats && !known && remember(entry, stats, { binary }) && !binary) index?.filterLater(entry);
  return binary ? 'binary' : len;
}

export function searchRoots(roots: readonly Root[], options: SearchOptions): SearchOutcome {
  const outcome: SearchOutcome = { matches: [], truncated: false, files_searched: 0, skipped: { binary: 0, too_large: 0 } };
  const holder: ReadHolder = { buffer: Buffer.allocUnsafe(64 * 1024) };
  const required = options.trigrams;
  const mayMatch = required ? (entry: IndexedFile) => mayContain(entry.trigrams!, required) : undefined;
  try {
  for (const root of roots) {
    const finished = eachFile(root, options.hidden, options.index, (rel, abs, entry) => {
      if (options.include && !options.include(rel)) return true;
      const len = readCandidate(abs, entry, holder, options.maxFileBytes, mayMatch, options.index);
      if (len === 'gone') return true;
      if (len === 'too_large' || len === 'binary') {
        outcome.skipped[len]++;
        return true;
      }
      outcome.files_searched++;
      if (len === 'no_match') return true;
      const buf = holder.buffer;
      const hits = options.matcher(buf, len);
      // Shown only if read from where it was listed (no folder on its way swapped for a symlink).
      if (hits.length > 0 && !confirmPlace(holder)) return true;
      let lineNo = 1;
      let counted = 0;
      for (const hit of hits) {
        lineNo += countNewlines(buf, counted, hit.start);
        counted = hit.start;
        if (outcome.matches.length === options.limit) {
          outcome.truncated = true;
          return false;
        }
        const match: SearchMatch = { repo: root.name, path: `${root.name}/${rel}`, line: lineNo, text: clip(lineText(buf, hit)) };
        if (options.context > 0) Object.assign(match, contextLines(buf, hit, len, options.context));
        outcome.matches.push(match);
      }
      return true;
    });
    if (!finished) break;
  }
  } finally {
    releaseRead(holder);
  }
  return outcome;
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
