import { statSync, type Stats } from 'node:fs';
import { remember, sameFile, type FileIndexes, type IndexedFile } from './file-index.js';
import { countFile, countText, matchesIn, searchFile, type FileResult, type ListedFile, type SearchMatch, type SearchReport } from './file-search.js';
import type { LineMatcher } from './patterns/line-matcher.js';
import { shapeOf, type LineShape } from './patterns/match-shape.js';
import { readInto, releaseRead, type ReadHolder } from './read-into.js';
import type { Root } from './roots.js';
import { mayContain, mayContainOneOfEach } from './patterns/trigrams.js';
import { walkFiles, type LeftOutReason } from './walk.js';

export { BLOCK_BYTES, relOf, type ListedFile, type SearchMatch, type SearchReport } from './file-search.js';

/**
 * Content search over roots: walk in deterministic order (roots as configured, then path
 * as rg --sort path orders it, then line), read each file synchronously into one reused buffer (files larger than
 * a block are read in blocks of whole lines, so a file of any size is searched in bounded
 * memory), skip binary files as ripgrep does (a NUL byte anywhere), and stop as soon as `limit`
 * matches are found. Nothing but the current file (or block) is held in memory, except what a
 * long-running process's index keeps (file-index.ts).
 */
export interface SearchOptions {
  matcher: LineMatcher;
  /** Most matches; Infinity for none (the terminal's --limit 0). */
  limit: number;
  context?: number;
  /** rg's -B/-A, -m and -o (match-shape.ts); without it, `context` lines on each side. */
  shape?: LineShape;
  hidden: boolean;
  /** Path filter inside a root (a compiled glob). */
  include?: (rel: string) => boolean;
  /** What a long-running process remembers of earlier walks and reads (serve); none for one-shot runs. */
  index?: FileIndexes;
  /** Trigrams every matching file contains (trigrams.ts), to skip files the index rules out. */
  trigrams?: readonly number[];
  /** Groups of trigrams of which every matching file holds one each (regex-grams.ts). */
  gramGroups?: readonly (readonly number[])[];
  /** Told of each match as it is found (the terminal streams an unlimited search). */
  onMatch?: (match: SearchMatch) => void;
  /**
   * What each file gives: its matching lines (default); its first one only, the limit then
   * counting files (rg -l); or how many lines match, in `counts` (rg -c).
   */
  report?: SearchReport;
}

/** A file and how many of its lines matched (rg -c). */
export interface FileCount {
  repo: string;
  path: string;
  count: number;
}

export interface SearchOutcome {
  matches: SearchMatch[];
  /** With report "counts": each file with a matching line, in walk order (matches is then empty). */
  counts?: FileCount[];
  truncated: boolean;
  files_searched: number;
  /** Files not searched, and why: binary (a NUL byte, as ripgrep decides); files and folders no path reaches (walk.ts). */
  skipped: Skipped;
}

/** What a walk left out, by reason (walk.ts LeftOutReason). */
export type LeftOut = Record<LeftOutReason, number>;

export interface Skipped extends LeftOut {
  binary: number;
}

export const noneLeftOut = (): LeftOut => ({ path_too_long: 0, name_not_utf8: 0 });

/**
 * Each file of a root in walk order: from the index when there is one (checked for changes), else
 * a fresh walk. `skipped.path_too_long` counts what the walk had to leave out.
 */
export function eachFile(
  root: Root,
  hidden: boolean,
  index: FileIndexes | undefined,
  visit: (rel: string, abs: string, entry?: IndexedFile) => boolean,
  skipped?: LeftOut,
): boolean {
  if (!index) return walkFiles(root, { hidden, ...(skipped ? { leftOut: (reason) => void skipped[reason]++ } : {}) }, visit);
  const of = index.of(root, hidden);
  const files = of.list();
  if (skipped) for (const reason of ['path_too_long', 'name_not_utf8'] as const) skipped[reason] += of.leftOut[reason];
  for (const entry of files) if (!visit(entry.rel, entry.abs, entry)) return false;
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
  const without = known?.same ? knownWithoutReading(entry!, mayMatch) : undefined;
  if (without) return without;
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

/** What a file's unchanged content is known to be without reading it: binary, or without the query's trigrams. */
function knownWithoutReading(entry: IndexedFile, mayMatch: TextFilter | undefined): 'binary' | 'no_match' | undefined {
  if (entry.binary) return 'binary';
  if (mayMatch && entry.trigrams && !mayMatch(entry)) return 'no_match';
  return undefined;
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

export function searchRoots(roots: readonly Root[], options: SearchOptions): SearchOutcome {
  const outcome = emptyOutcome(options, noneLeftOut());
  const holder: ReadHolder = { buffer: Buffer.allocUnsafe(64 * 1024) };
  const required = options.trigrams;
  const groups = options.gramGroups;
  const mayMatch = required
    ? (entry: IndexedFile) => mayContain(entry.trigrams!, required)
    : groups
      ? (entry: IndexedFile) => mayContainOneOfEach(entry.trigrams!, groups)
      : undefined;
  const { index } = options;
  const search = index?.nextSearch() ?? 0;
  try {
    for (const root of roots) {
      const finished = eachFile(
        root,
        options.hidden,
        index,
        (rel, abs, entry) => {
          if (options.include && !options.include(rel)) return true;
          const known = entry ? knownFacts(abs, entry, index) : undefined;
          if (known === 'gone') return true;
          if (known?.same) {
            // Most files of a large tree end here: counted, with nothing made for them.
            const without = knownWithoutReading(entry!, mayMatch);
            if (without) {
              if (without === 'binary') outcome.skipped.binary++;
              else outcome.files_searched++;
              return true;
            }
          }
          const file: ListedFile = { abs, repo: root.name, path: `${root.name}/${rel}` };
          // Copied into the cache only after its place was confirmed (file-index.ts).
          const cached = known?.same ? entry!.content : undefined;
          if (cached) {
            entry!.used = search;
            return tally(searchText(cached, file, options, outcome), outcome, options);
          }
          const result = searchOne(file, holder, options, outcome);
          if (result.status !== 'gone' && entry && known && !known.same && known.stats) learned(entry, known.stats, result.status === 'binary', index);
          else if (result.status === 'searched' && known?.same) index!.wanted(entry!, search);
          return tally(result, outcome, options);
        },
        outcome.skipped,
      );
      if (!finished) break;
    }
  } finally {
    releaseRead(holder);
  }
  return outcome;
}

/**
 * Searches files already listed in walk order, without an index: what a worker does with the
 * list that a long-running process's index gave it (search-worker.ts). `skipped` carries what the
 * listing left out; `holder` is the thread's read buffer when it searches more than one list.
 */
export function searchListed(
  files: readonly ListedFile[],
  options: Pick<SearchOptions, 'matcher' | 'limit' | 'context' | 'shape' | 'onMatch' | 'report'>,
  skipped: LeftOut,
  holder: ReadHolder = { buffer: Buffer.allocUnsafe(64 * 1024) },
): SearchOutcome {
  const outcome = emptyOutcome(options, skipped);
  try {
    for (const file of files) {
      if (!tally(searchOne(file, holder, options, outcome), outcome, options)) break;
    }
  } finally {
    releaseRead(holder);
  }
  return outcome;
}

function emptyOutcome(options: Pick<SearchOptions, 'report'>, skipped: LeftOut): SearchOutcome {
  return { matches: [], ...(options.report === 'counts' ? { counts: [] } : {}), truncated: false, files_searched: 0, skipped: { binary: 0, ...skipped } };
}

/** How many more matches the search takes, and how many of them from one file (one with -l). */
function roomFor(outcome: SearchOutcome, options: Pick<SearchOptions, 'limit' | 'report'>): { left: number; file: number } {
  const left = options.limit - outcome.matches.length;
  return { left, file: options.report === 'files' ? Math.min(1, left) : left };
}

/** One file on disk, as the report asks. */
function searchOne(
  file: ListedFile,
  holder: ReadHolder,
  options: Pick<SearchOptions, 'matcher' | 'limit' | 'context' | 'shape' | 'report'>,
  outcome: SearchOutcome,
): FileResult {
  if (options.report === 'counts') return countFile(file, holder, options.matcher, shapeOf(options));
  const room = roomFor(outcome, options);
  const result = searchFile(file, holder, options.matcher, shapeOf(options), room.file);
  // -l wants one line of a file: more is not more to report.
  return room.file < room.left ? { ...result, cut: false } : result;
}

/** A file's text already in memory (the index's copy), as the report asks. */
function searchText(text: Buffer, file: ListedFile, options: SearchOptions, outcome: SearchOutcome): FileResult {
  if (options.report === 'counts') return countText(text, file, options.matcher, shapeOf(options));
  const room = roomFor(outcome, options);
  const found: SearchMatch[] = [];
  const wanted = matchesIn(text, text.length, 0, file, options.matcher, shapeOf(options), room.file, found);
  return { status: 'searched', found, cut: wanted === 'cut' && room.file === room.left };
}

/**
 * Adds one file's result to the outcome, in walk order: at most the limit's matches (or counted
 * files), `truncated` once one is left over. False once the search has what it needs.
 */
function tally(result: FileResult, outcome: SearchOutcome, options: Pick<SearchOptions, 'limit' | 'onMatch'>): boolean {
  if (result.status === 'gone') return true;
  if (result.status === 'binary') {
    outcome.skipped.binary++;
    return true;
  }
  outcome.files_searched++;
  if (outcome.counts) {
    if (!result.of) return true;
    if (outcome.counts.length >= options.limit) {
      outcome.truncated = true;
      return false;
    }
    outcome.counts.push({ ...result.of, count: result.count ?? 0 });
    return true;
  }
  const take = Math.min(result.found.length, options.limit - outcome.matches.length);
  for (let i = 0; i < take; i++) {
    const match = result.found[i]!;
    outcome.matches.push(match);
    options.onMatch?.(match);
  }
  if (result.cut || result.found.length > take) outcome.truncated = true;
  return !outcome.truncated;
}

/** Every file of the roots that `include` keeps, in walk order, as a search names them (for a worker: searchListed). */
export function listFiles(
  roots: readonly Root[],
  options: { hidden: boolean; include?: (rel: string) => boolean; index?: FileIndexes },
): { files: ListedFile[]; skipped: LeftOut } {
  const files: ListedFile[] = [];
  const skipped = noneLeftOut();
  for (const root of roots) {
    eachFile(
      root,
      options.hidden,
      options.index,
      (rel, abs) => {
        if (!options.include || options.include(rel)) files.push({ abs, repo: root.name, path: `${root.name}/${rel}` });
        return true;
      },
      skipped,
    );
  }
  return { files, skipped };
}

/** Files whose path inside their root matches, in the same deterministic order. */
export function findFiles(
  roots: readonly Root[],
  include: (rel: string) => boolean,
  options: { limit: number; hidden: boolean; index?: FileIndexes },
): { files: { repo: string; path: string }[]; truncated: boolean; skipped: LeftOut } {
  const files: { repo: string; path: string }[] = [];
  const skipped = noneLeftOut();
  let truncated = false;
  for (const root of roots) {
    const finished = eachFile(
      root,
      options.hidden,
      options.index,
      (rel) => {
        if (!include(rel)) return true;
        if (files.length === options.limit) {
          truncated = true;
          return false;
        }
        files.push({ repo: root.name, path: `${root.name}/${rel}` });
        return true;
      },
      skipped,
    );
    if (!finished) break;
  }
  return { files, truncated, skipped };
}
