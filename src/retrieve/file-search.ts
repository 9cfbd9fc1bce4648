import { readSync } from 'node:fs';
import { countNewlines, lineText, type LineMatcher } from './patterns/line-matcher.js';
import { shapedMatch, type LineShape, type SearchMatch } from './patterns/match-shape.js';
import { confirmPlace, releaseRead, type ReadHolder } from './read-into.js';
import { openListedFile } from './safe-open.js';

/**
 * Searching one file on disk, of any size, for the matches of a line matcher (search.ts walks
 * the roots and decides which files to search, and what a cached copy saves; match-shape.ts
 * shapes each match).
 */
export type { SearchMatch } from './patterns/match-shape.js';

/** A file to search: where it is, and how a match in it is named. */
export interface ListedFile {
  abs: string;
  repo: string;
  path: string;
}

/** A listed file's path inside its root (what a glob is matched against). */
export const relOf = (file: ListedFile): string => file.path.slice(file.repo.length + 1);

export interface FileResult {
  status: 'searched' | 'binary' | 'gone';
  /** Its matches (none for a binary file, or one whose place could not be confirmed). */
  found: SearchMatch[];
  /** More matches were left than `room` allowed. */
  cut: boolean;
  /** How many lines (or -o's matches) matched, and of which file with a matching line, even at 0 (rg -o -v -c: "path:0"). */
  count?: number;
  of?: { repo: string; path: string };
}

/** What a search gives of each file (rg's default, -l and -c). */
export type SearchReport = 'lines' | 'files' | 'counts';

/** Files larger than this are read in blocks of whole lines (a longer line grows the block). */
export const BLOCK_BYTES = 16 * 1024 * 1024;
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
      // The buffer outlives the file (one per thread, grown by its largest): reads grow from small,
      // so that a binary file is told by its first NUL without reading as much as that file.
      n = readSync(fd, buf, filled, Math.min(buf.length - filled, Math.max(FIRST_READ, filled)), null);
    } catch {
      return 'gone';
    }
    if (n === 0) {
      if (filled === 0) return 'searched';
      if (wanted) visit(buf, filled, linesBefore);
      return 'searched';
    }
    // Binary as soon as a NUL is read: the rest of the file (most of /usr/share's bytes are such
    // files) is not read for nothing.
    if (buf.subarray(filled, filled + n).includes(0)) return 'binary';
    filled += n;
    if (filled < buf.length || buf.length < BLOCK_BYTES) continue;
    // A full block: hand over its whole lines, keep the unfinished last one.
    const cut = buf.lastIndexOf(10, filled - 1) + 1;
    if (cut === 0) continue; // one line longer than the block: grow
    if (wanted) wanted = visit(buf, cut, linesBefore);
    linesBefore += countNewlines(buf, 0, cut);
    buf.copy(buf, 0, cut, filled);
    filled -= cut;
  }
}

/** What a file's first read takes at most (ripgrep's own read size); each read after it at most doubles what was read. */
const FIRST_READ = 64 * 1024;

/** Whether a file wants more lines: yes; no, matches were left over (`room` is full); no, its -m is reached. */
export type Wanted = 'more' | 'cut' | 'full';

/**
 * The matches of one file's text (cached, or a block of it) beginning after `linesBefore` lines,
 * into `into` (the file's matches so far): at most `room`, and at most the shape's maxCount. At
 * the maxCount, the lines of the last match's after-context that match too are marked in it.
 */
export function matchesIn(
  buf: Buffer,
  len: number,
  linesBefore: number,
  where: { repo: string; path: string },
  matcher: LineMatcher,
  shape: LineShape,
  room: number,
  into: SearchMatch[],
): Wanted {
  const hits = matcher(buf, len);
  let lineNo = linesBefore + 1;
  let counted = 0;
  let trailing: number[] | undefined;
  for (const hit of hits) {
    lineNo += countNewlines(buf, counted, hit.start);
    counted = hit.start;
    if (into.length >= shape.maxCount) {
      const last = into[into.length - 1];
      if (!last || lineNo > last.line + shape.after) break;
      (trailing ??= []).push(lineNo);
      continue;
    }
    if (into.length >= room) return 'cut';
    into.push(shapedMatch(buf, len, hit, lineNo, where, shape));
  }
  if (trailing) into[into.length - 1]!.after_matches = trailing;
  return into.length >= shape.maxCount ? 'full' : 'more';
}

/**
 * How many lines of one file on disk, of any size, `matcher` finds (rg -c), at most the shape's
 * maxCount; with its parts (rg -o -c), how many matches those lines hold.
 */
export function countFile(file: ListedFile, holder: ReadHolder, matcher: LineMatcher, shape: LineShape): FileResult {
  const tally = { lines: 0, count: 0 };
  const status = scanFile(file.abs, holder, (buf, len) => countIn(buf, len, matcher, shape, tally));
  if (status !== 'searched' || (tally.lines > 0 && !confirmPlace(holder))) return { status, found: [], cut: false, count: 0 };
  return { status, found: [], cut: false, count: tally.count, ...(tally.lines > 0 ? { of: { repo: file.repo, path: file.path } } : {}) };
}

/** countFile for a text already in memory (the index's copy). */
export function countText(text: Buffer, file: { repo: string; path: string }, matcher: LineMatcher, shape: LineShape): FileResult {
  const tally = { lines: 0, count: 0 };
  countIn(text, text.length, matcher, shape, tally);
  return { status: 'searched', found: [], cut: false, count: tally.count, ...(tally.lines > 0 ? { of: { repo: file.repo, path: file.path } } : {}) };
}

/** Adds one text's matching lines (or their parts) to `tally`; false once maxCount lines are counted. */
export function countIn(buf: Buffer, len: number, matcher: LineMatcher, shape: LineShape, tally: { lines: number; count: number }): boolean {
  const hits = matcher(buf, len);
  const take = Math.min(hits.length, shape.maxCount - tally.lines);
  tally.lines += take;
  if (!shape.parts) tally.count += take;
  else for (let i = 0; i < take; i++) tally.count += shape.parts(lineText(buf, hits[i]!)).length;
  return tally.lines < shape.maxCount;
}

/** Searches one file on disk, of any size, for at most `room` matches. */
export function searchFile(file: ListedFile, holder: ReadHolder, matcher: LineMatcher, shape: LineShape, room: number): FileResult {
  const found: SearchMatch[] = [];
  let cut = false;
  const status = scanFile(file.abs, holder, (buf, len, linesBefore) => {
    const wanted = matchesIn(buf, len, linesBefore, file, matcher, shape, room, found);
    cut = wanted === 'cut';
    return wanted === 'more';
  });
  if (status !== 'searched') return { status, found: [], cut: false };
  // Shown only if read from where it was listed (no folder on its way swapped for a symlink).
  if (found.length > 0 && !confirmPlace(holder)) return { status, found: [], cut: false };
  return { status, found, cut };
}
