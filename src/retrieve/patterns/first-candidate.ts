import { isAscii } from 'node:buffer';

/**
 * Where in a file a regular expression without a required literal may first match a line, found
 * without testing line by line: the file's text is decoded once and tested in segments of whole
 * lines (`mayMatch` runs the expression with the m flag), so a file with no match costs one
 * decoding and one scan instead of an object, a string and a test per line (on /usr/share,
 * `[0-9]{4}-[0-9]{2}-[0-9]{2}T` spent most of 30 s there). Only lines from the first matching
 * segment on are then tested one by one, as before, so what matches is exactly what did.
 *
 * Sound for an expression that looks at nothing outside the line it matches in: whatever matches
 * inside a line matches at the same place in the text around it, since with the m flag ^ and $
 * also hold at a line's edges (and before a \r the line's text leaves out), \b and \B see the
 * newline as the line's edge (a non-word character either way), and a class that takes a newline
 * only adds matches. Lookaround and backreferences are not sound here (and an expression with
 * them may backtrack without bound over a whole segment): the caller gives none (query.ts). Pure.
 */

/**
 * Characters of text tested at once: a bound on what one test backtracks over. V8 moves a run
 * that backtracked 50,000 times to its linear engine, which is slow on long texts (bounded.ts
 * longLineTest); an ordinary expression backtracks about once per character it starts at, so a
 * segment this short stays on the backtracking engine, and costs little where it does not.
 * (Raising the limit around each test, as long lines do, cost more than the tests themselves.)
 */
export const SEGMENT_CHARS = 16 * 1024;

/** How lines of `chars` characters or more are tested (bounded.ts longLineTest), as regexMatcher tests them. */
export interface LongLine {
  chars: number;
  test: (text: string) => boolean;
}

/**
 * The byte offset of the first line of buf[0, len) that may match, or -1 when no line can. A
 * segment's long line (`longLine`) is tested on its own by `longLine.test`: in a segment, under
 * V8's default backtrack limit, an ordinary expression moves to the linear engine on it (37 times
 * slower on a 2 MB minified line). SEGMENT_CHARS is below LONG_LINE, so only a segment's last
 * line, the one that crosses its first segmentChars characters, can be that long.
 */
export function firstCandidateLine(buf: Buffer, len: number, mayMatch: (text: string) => boolean, segmentChars = SEGMENT_CHARS, longLine?: LongLine): number {
  // An ASCII text is the same decoded either way, and latin1 decodes it in half the time.
  const text = buf.toString(isAscii(buf.subarray(0, len)) ? 'latin1' : 'utf8', 0, len);
  for (let from = 0; from < text.length;) {
    let to = from + segmentChars >= text.length ? text.length : text.indexOf('\n', from + segmentChars);
    if (to < 0) to = text.length;
    const last = Math.max(from, text.lastIndexOf('\n', to - 1) + 1);
    const long = longLine !== undefined && to - last >= longLine.chars;
    // The short lines before a long one (an empty line among them), without the newline between.
    const end = long ? last - 1 : to;
    if (end >= from && mayMatch(from === 0 && end === text.length ? text : text.slice(from, end))) return lineStart(buf, len, newlinesBefore(text, from));
    if (long && longLine.test(withoutCarriageReturn(text.slice(last, to)))) return lineStart(buf, len, newlinesBefore(text, last));
    from = to + 1;
  }
  return -1;
}

/** A line's text as lineText gives it: without the \r of a CRLF ending (the m flag's $ holds before it). */
function withoutCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** How many newlines text[0, end) holds. */
function newlinesBefore(text: string, end: number): number {
  let n = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < end; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/**
 * The byte offset where the line after `lines` newlines starts. A newline byte is a newline in the
 * decoded text and the other way round (UTF-8 decoding never takes a 0x0A byte into another
 * character, not even into the replacement of a broken sequence), so lines are counted alike.
 */
function lineStart(buf: Buffer, len: number, lines: number): number {
  let at = 0;
  for (let i = 0; i < lines; i++) {
    const nl = buf.indexOf(10, at);
    if (nl < 0 || nl >= len) return len;
    at = nl + 1;
  }
  return at;
}
