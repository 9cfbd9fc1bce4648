import { lineText, type LineHit } from './line-matcher.js';
import type { PartsOf } from './match-parts.js';

/**
 * What a search gives of each matching line (file-search.ts finds the lines): the line as shown,
 * rg's before and after context (-B, -A; -C sets both), rg -m's cut, and rg -o's parts. Pure.
 */
export interface SearchMatch {
  repo: string;
  path: string;
  line: number;
  text: string;
  before?: string[];
  after?: string[];
  /** With only_matching (rg -o): what the query matched in this line, in order (none in a line -v chose). */
  matched?: string[];
  /** With only_matching: what the query matched in context lines, by line number (lines without a match are left out). */
  context_matched?: Record<string, string[]>;
  /** With max_count (rg -m): the after-context lines that match too, by line number; rg prints them as matches. */
  after_matches?: number[];
}

export interface LineShape {
  /** Lines of context before and after each match (rg -B and -A). */
  before: number;
  after: number;
  /** Most matching lines of one file (rg -m); Infinity for no limit. */
  maxCount: number;
  /** With rg -o: what the query matches in a line. */
  parts?: PartsOf;
  /** Most parts kept of one line (over MCP: a minified line can hold millions); none for no limit. */
  mostParts?: number;
}

/** No context, no limit per file, whole lines. */
export const WHOLE_LINES: LineShape = { before: 0, after: 0, maxCount: Number.POSITIVE_INFINITY };

/** The shape a search's options ask for: `shape`, else `context` lines on each side. */
export function shapeOf(options: { context?: number; shape?: LineShape }): LineShape {
  const context = options.context ?? 0;
  return options.shape ?? { ...WHOLE_LINES, before: context, after: context };
}

/** The sides of context rg takes from -C, -B and -A: -B and -A each override -C's side (rg 14 on). */
export function contextSides(asked: { context?: number; before_context?: number; after_context?: number }): { before: number; after: number } {
  const both = asked.context ?? 0;
  return { before: asked.before_context ?? both, after: asked.after_context ?? both };
}

const MAX_LINE = 300;

function clip(text: string): string {
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
}

/**
 * A line as shown: only its start is decoded (a minified file's line can be megabytes, and a
 * slice of a decoded line would keep all of it alive), then cut to MAX_LINE characters.
 */
export function shown(buf: Buffer, hit: LineHit): string {
  const end = hit.start + MAX_LINE * 4; // 4 bytes: the longest UTF-8 character
  if (hit.end <= end) return clip(lineText(buf, hit));
  return `${buf.toString('utf8', hit.start, end).slice(0, MAX_LINE - 1)}…`;
}

/** Up to `count` lines before `hit` and up to `after` after it, within buf[0, len). */
function contextHits(buf: Buffer, hit: LineHit, len: number, count: { before: number; after: number }): { before: LineHit[]; after: LineHit[] } {
  const before: LineHit[] = [];
  let start = hit.start;
  while (before.length < count.before && start > 0) {
    const prevEnd = start - 1;
    const prevStart = buf.lastIndexOf(10, prevEnd - 1) + 1;
    before.unshift({ start: prevStart, end: prevEnd });
    start = prevStart;
  }
  const after: LineHit[] = [];
  let end = hit.end;
  while (after.length < count.after && end < len) {
    const nextStart = end + 1;
    if (nextStart >= len) break;
    let nextEnd = buf.indexOf(10, nextStart);
    if (nextEnd < 0 || nextEnd > len) nextEnd = len;
    after.push({ start: nextStart, end: nextEnd });
    end = nextEnd;
  }
  return { before, after };
}

/** One matching line, numbered `lineNo`, with what the shape asks around it. */
export function shapedMatch(buf: Buffer, len: number, hit: LineHit, lineNo: number, where: { repo: string; path: string }, shape: LineShape): SearchMatch {
  const match: SearchMatch = { repo: where.repo, path: where.path, line: lineNo, text: shown(buf, hit) };
  const { parts } = shape;
  const partsOf = (line: LineHit) => parts!(lineText(buf, line), shape.mostParts).map(clip);
  if (parts) match.matched = partsOf(hit);
  if (shape.before === 0 && shape.after === 0) return match;
  const around = contextHits(buf, hit, len, shape);
  match.before = around.before.map((line) => shown(buf, line));
  match.after = around.after.map((line) => shown(buf, line));
  if (parts) {
    const found: Record<string, string[]> = {};
    const first = lineNo - around.before.length;
    [...around.before, hit, ...around.after].forEach((line, i) => {
      const lineParts = line === hit ? [] : partsOf(line);
      if (lineParts.length > 0) found[String(first + i)] = lineParts;
    });
    if (Object.keys(found).length > 0) match.context_matched = found;
  }
  return match;
}
