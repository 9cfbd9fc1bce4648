import type { FileIndexes } from './file-index.js';
import type { Root } from './roots.js';
import { confirmPlace, releaseRead, type ReadHolder } from './read-into.js';
import { eachFile, noneLeftOut, readCandidate, type LeftOut } from './search.js';
import { rankOrder, termStem, type RankInput } from './smart-rank.js';
import { mayContain, requiredTrigrams } from './patterns/trigrams.js';

/**
 * A repo-agnostic search, grown for questions: the query is split into terms, every file
 * of every root is checked for each term's stem (case-insensitively), and files are ranked as
 * smart-rank.ts describes; each file shows its lines with the most terms first, then by line
 * number. A one-word query is a case-insensitive search grouped by file.
 */
const STOP = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'can',
  'do',
  'does',
  'for',
  'from',
  'how',
  'i',
  'in',
  'is',
  'it',
  'of',
  'on',
  'or',
  'the',
  'this',
  'to',
  'what',
  'when',
  'where',
  'which',
  'who',
  'why',
  'with',
]);

export function queryTerms(query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}_$]+/u)
    .filter((w) => w.length > 1 && !STOP.has(w));
  const unique = [...new Set(words)];
  return unique.length ? unique : [query.trim().toLowerCase()].filter((q) => q !== '');
}

export interface SmartFile {
  repo: string;
  path: string;
  terms: string[];
  lines: { line: number; text: string }[];
}

/** A line holding some of the terms: its number, where it is in the text, and which terms. */
interface TermLine {
  line: number;
  start: number;
  end: number;
  terms: Set<number>;
}

/**
 * Where `terms` occur in `lower` (a lower-cased text): how many times each, and the lines holding
 * any, with the terms each holds. Works from term positions instead of splitting the text into
 * lines: most files hold a term on few of their lines.
 */
function termPlaces(lower: string, terms: readonly string[]): { counts: number[]; lines: TermLine[] } {
  const events: { pos: number; term: number }[] = [];
  const counts = terms.map((term, i) => {
    let n = 0;
    for (let pos = lower.indexOf(term); pos >= 0; pos = lower.indexOf(term, pos + term.length), n++) events.push({ pos, term: i });
    return n;
  });
  events.sort((a, b) => a.pos - b.pos);
  const byLine = new Map<number, TermLine>();
  let line = 1;
  let lineStart = 0;
  let nextBreak = lower.indexOf('\n');
  for (const { pos, term } of events) {
    while (nextBreak >= 0 && nextBreak < pos) {
      line++;
      lineStart = nextBreak + 1;
      nextBreak = lower.indexOf('\n', lineStart);
    }
    let entry = byLine.get(line);
    if (!entry) byLine.set(line, (entry = { line, start: lineStart, end: nextBreak < 0 ? lower.length : nextBreak, terms: new Set() }));
    entry.terms.add(term);
  }
  return { counts, lines: [...byLine.values()] };
}

/** The `count` of `lines` holding the most terms, ties to the earlier line, in line order, as text. */
function pickLines(text: string, lower: string, lines: readonly TermLine[], count: number): { line: number; text: string }[] {
  // toLowerCase keeps line breaks but may change lengths (U+0130 becomes two characters).
  const sameOffsets = text.length === lower.length;
  const originalLines = sameOffsets ? undefined : text.split('\n');
  return [...lines]
    .sort((a, b) => b.terms.size - a.terms.size || a.line - b.line)
    .slice(0, count)
    .sort((a, b) => a.line - b.line)
    .map((l) => ({ line: l.line, text: detached((sameOffsets ? text.slice(l.start, l.end) : originalLines![l.line - 1]!).replace(/\r$/, '').slice(0, 300)) }));
}

/**
 * The `count` lines of `text` holding the most of `terms` (found in `lower`, its lower-cased
 * copy), ties to the earlier line, returned in line order.
 */
export function bestLines(text: string, lower: string, terms: readonly string[], count: number): { line: number; text: string }[] {
  return pickLines(text, lower, termPlaces(lower, terms).lines, count);
}

/**
 * A copy of `s` that does not keep its parent string alive: V8 slices point into the whole file's
 * text, and a search keeping a few lines of thousands of files would otherwise hold all of them
 * (measured: 150 MB more peak memory on a node_modules tree).
 */
function detached(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

export function smartSearch(
  roots: readonly Root[],
  terms: readonly string[],
  options: { maxFileBytes: number; limit: number; linesPerFile: number; include?: (rel: string) => boolean; index?: FileIndexes },
): { files: SmartFile[]; total_files: number; truncated: boolean; skipped: LeftOut } {
  const skipped = noneLeftOut();
  const hits: { file: SmartFile; rank: RankInput }[] = [];
  const holder: ReadHolder = { buffer: Buffer.allocUnsafe(64 * 1024) };
  const stems = terms.map(termStem);
  let looked = 0;
  // A file can only rank if it holds some term; a term too short for trigrams could be anywhere.
  const perTerm = stems.map((t) => requiredTrigrams(Buffer.from(t), true));
  const mayMatch = perTerm.every(Boolean) ? (entry: { trigrams?: Uint32Array }) => perTerm.some((t) => mayContain(entry.trigrams!, t!)) : undefined;
  try {
    for (const root of roots) {
      eachFile(
        root,
        false,
        options.index,
        (rel, abs, entry) => {
          if (options.include && !options.include(rel)) return true;
          looked++;
          const len = readCandidate(abs, entry, holder, options.maxFileBytes, mayMatch, options.index);
          if (typeof len !== 'number') return true;
          const text = holder.buffer.toString('utf8', 0, len);
          const lower = text.toLowerCase();
          // One pass over the text gives both how often each term occurs and the lines to show.
          const { counts, lines: termLines } = termPlaces(lower, stems);
          if (counts.every((n) => n === 0) || !confirmPlace(holder)) return true;
          const found = stems.filter((_, i) => counts[i]! > 0);
          const lines = pickLines(text, lower, termLines, options.linesPerFile);
          const bestLineTerms = Math.max(0, ...lines.map((l) => found.filter((stem) => l.text.toLowerCase().includes(stem)).length));
          const path = `${root.name}/${rel}`;
          hits.push({
            file: { repo: root.name, path, terms: terms.filter((_, i) => counts[i]! > 0), lines },
            rank: { path, bytes: len, lines: occurrences(lower, '\n') + 1, counts, bestLineTerms },
          });
          return true;
        },
        skipped,
      );
    }
  } finally {
    releaseRead(holder);
  }
  const order = rankOrder(
    hits.map((h) => h.rank),
    stems,
    looked,
  );
  const files = order.slice(0, options.limit).map((i) => hits[i]!.file);
  return { files, total_files: hits.length, truncated: hits.length > options.limit, skipped };
}

function occurrences(text: string, term: string): number {
  let n = 0;
  for (let pos = text.indexOf(term); pos >= 0; pos = text.indexOf(term, pos + term.length)) n++;
  return n;
}
