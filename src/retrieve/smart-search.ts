import type { Root } from './roots.js';
import { readInto } from './search.js';
import { walkFiles } from './walk.js';

/**
 * The seed's repo-agnostic search, grown for questions: the query is split into terms, every file
 * of every root is checked for each term (case-insensitively), and files are ranked by how many
 * distinct terms they contain, then root order, then path byte-wise; each file shows its lines
 * with the most terms first, then by line number. A one-word query is a case-insensitive search
 * grouped by file.
 */
const STOP = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'can', 'do', 'does', 'for', 'from', 'how', 'i', 'in', 'is', 'it', 'of', 'on', 'or', 'the', 'this', 'to', 'what', 'when', 'where', 'which', 'who', 'why', 'with']);

export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().split(/[^\p{L}\p{N}_$]+/u).filter((w) => w.length > 1 && !STOP.has(w));
  const unique = [...new Set(words)];
  return unique.length ? unique : [query.trim().toLowerCase()].filter((q) => q !== '');
}

export interface SmartFile {
  repo: string;
  path: string;
  terms: string[];
  lines: { line: number; text: string }[];
}

export function smartSearch(
  roots: readonly Root[],
  terms: readonly string[],
  options: { maxFileBytes: number; limit: number; linesPerFile: number; include?: (rel: string) => boolean },
): { files: SmartFile[]; total_files: number; truncated: boolean } {
  const hits: (SmartFile & { order: number })[] = [];
  const holder = { buffer: Buffer.allocUnsafe(64 * 1024) };
  let order = 0;
  for (const root of roots) {
    walkFiles(root, {}, (rel, abs) => {
      if (options.include && !options.include(rel)) return true;
      let len: number;
      try {
        len = readInto(abs, holder, options.maxFileBytes);
      } catch {
        return true;
      }
      if (len < 0 || holder.buffer.subarray(0, Math.min(len, 8192)).includes(0)) return true;
      const text = holder.buffer.toString('utf8', 0, len);
      const lower = text.toLowerCase();
      const found = terms.filter((t) => lower.includes(t));
      if (found.length === 0) return true;
      const originalLines = text.split('\n');
      const lowerLines = lower.split('\n');
      const scored: { line: number; text: string; n: number }[] = [];
      lowerLines.forEach((l, i) => {
        const n = found.filter((t) => l.includes(t)).length;
        if (n > 0) scored.push({ line: i + 1, text: (originalLines[i] ?? '').replace(/\r$/, '').slice(0, 300), n });
      });
      scored.sort((a, b) => b.n - a.n || a.line - b.line);
      const lines = scored.slice(0, options.linesPerFile).sort((a, b) => a.line - b.line).map(({ line, text }) => ({ line, text }));
      hits.push({ repo: root.name, path: `${root.name}/${rel}`, terms: found, lines, order: order++ });
      return true;
    });
  }
  hits.sort((a, b) => b.terms.length - a.terms.length || a.order - b.order);
  return { files: hits.slice(0, options.limit).map(({ order: _o, ...f }) => f), total_files: hits.length, truncated: hits.length > options.limit };
}
