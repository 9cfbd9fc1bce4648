import { readSync } from 'node:fs';
import { countNewlines, lineText, type LineHit, type LineMatcher } from './line-matcher.js';
import { confirmPlace, releaseRead, type ReadHolder } from './read-into.js';
import { openListedFile } from './safe-open.js';

/**
 * Searching one file on disk, of any size, for the matches of a line matcher (search.ts walks
 * the roots and decides which files to search, and what a cached copy saves).
 */
export interface SearchMatch {
  repo: string;
  path: string;
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

/** A file to search: where it is, and how a match in it is named. */
export interface ListedFile {
  abs: string;
  repo: string;
  path: string;
}

export interface FileResult {
  status: 'searched' | 'binary' | 'gone';
  /** Its matches (none for a binary file, or one whose place could not be confirmed). */
  found: SearchMatch[];
  /** More matches were left than `room` allowed. */
  cut: boolean;
  /** How many lines matched, and of which file (count mode: `found` is then empty). */
  count?: number;
  of?: { repo: string; path: string };
}

/** What a search gives of each file (rg's default, -l and -c). */
export type SearchReport = 'lines' | 'files' | 'counts';

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
export function matchesIn(
  buf: Buffer,
  len: number,
  linesBefore: number,
  where: { repo: string; path: string },
  matcher: LineMatcher,
  context: number,
  room: number,
  into: SearchMatch[],
): boolean {
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

/** Counts the lines of one file on disk, of any size, that `matcher` finds (rg -c). */
export function countFile(file: ListedFile, holder: ReadHolder, matcher: LineMatcher): FileResult {
  let count = 0;
  const status = scanFile(file.abs, holder, (buf, len) => {
    count += matcher(buf, len).length;
    return true;
  });
  if (status !== 'searched' || (count > 0 && !confirmPlace(holder))) return { status, found: [], cut: false, count: 0 };
  return { status, found: [], cut: false, count, of: { repo: file.repo, path: file.path } };
}

/** Searches one file on disk, of any size, for at most `room` matches. */
export function searchFile(file: ListedFile, holder: ReadHolder, matcher: LineMatcher, context: number, room: number): FileResult {
  const found: SearchMatch[] = [];
  let cut = false;
  const status = scanFile(file.abs, holder, (buf, len, linesBefore) => {
    if (matchesIn(buf, len, linesBefore, file, matcher, context, room, found)) return true;
    cut = true;
    return false;
  });
  if (status !== 'searched') return { status, found: [], cut: false };
  // Shown only if read from where it was listed (no folder on its way swapped for a symlink).
  if (found.length > 0 && !confirmPlace(holder)) return { status, found: [], cut: false };
  return { status, found, cut };
}
