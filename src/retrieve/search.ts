import { closeSync, openSync, readSync } from 'node:fs';
import { countNewlines, lineText, type LineHit, type LineMatcher } from './line-matcher.js';
import type { Root } from './roots.js';
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

/** Reads a whole file into `buffer` (grown as needed up to `max + 1`); returns its length, or -1 when larger than `max`. */
export function readInto(path: string, holder: { buffer: Buffer }, max: number): number {
  const fd = openSync(path, 'r');
  try {
    let len = 0;
    for (;;) {
      if (len === holder.buffer.length) {
        if (holder.buffer.length > max) return -1;
        const bigger = Buffer.allocUnsafe(Math.min(holder.buffer.length * 2, max + 1));
        holder.buffer.copy(bigger, 0, 0, len);
        holder.buffer = bigger;
      }
      const n = readSync(fd, holder.buffer, len, holder.buffer.length - len, null);
      if (n === 0) break;
      len += n;
      if (len > max) return -1;
    }
    return len;
  } finally {
    closeSync(fd);
  }
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

export function searchRoots(roots: readonly Root[], options: SearchOptions): SearchOutcome {
  const outcome: SearchOutcome = { matches: [], truncated: false, files_searched: 0, skipped: { binary: 0, too_large: 0 } };
  const holder = { buffer: Buffer.allocUnsafe(64 * 1024) };
  for (const root of roots) {
    const finished = walkFiles(root, { hidden: options.hidden }, (rel, abs) => {
      if (options.include && !options.include(rel)) return true;
      let len: number;
      try {
        len = readInto(abs, holder, options.maxFileBytes);
      } catch {
        return true; // vanished or unreadable: skip
      }
      if (len < 0) {
        outcome.skipped.too_large++;
        return true;
      }
      const buf = holder.buffer;
      if (buf.subarray(0, Math.min(len, 8192)).includes(0)) {
        outcome.skipped.binary++;
        return true;
      }
      outcome.files_searched++;
      const hits = options.matcher(buf, len);
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
  return outcome;
}

/** Files whose path inside their root matches, in the same deterministic order. */
export function findFiles(roots: readonly Root[], include: (rel: string) => boolean, limit: number, hidden: boolean): { files: { repo: string; path: string }[]; truncated: boolean } {
  const files: { repo: string; path: string }[] = [];
  let truncated = false;
  for (const root of roots) {
    const finished = walkFiles(root, { hidden }, (rel) => {
      if (!include(rel)) return true;
      if (files.length === limit) {
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
