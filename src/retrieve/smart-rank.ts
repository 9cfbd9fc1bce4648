import { idf, termWeight } from '../core/bm25.js';

/**
 * How smart_search orders the files that hold some of a question's words. Pure.
 *
 * - Terms are matched by a light stem ("locked" finds "lock", "edits" finds "edit"), as a person
 *   asking in words means the idea, not the inflection.
 * - A file's score is BM25 over the terms it holds (rare terms weigh more, repeats saturate, long
 *   files are normalised), plus a bonus for terms in its file name (src/config/files/lock.ts is about
 *   locks) and for terms that meet on one line.
 * - Generated files (lock files, manifests, source maps, minified bundles, build output) keep a
 *   quarter of their score: they repeat every word of a project without explaining any.
 * Ties go to the order the files were found in (root order, then path as rg --sort path).
 */

const SUFFIXES = ['ing', 'ed', 'es', 's', 'ly'];

/** The stem a term is matched by: a common English suffix dropped when at least four letters remain. */
export function termStem(term: string): string {
  for (const suffix of SUFFIXES) {
    if (term.endsWith(suffix) && term.length - suffix.length >= 4 && !term.endsWith('ss')) return term.slice(0, -suffix.length);
  }
  return term;
}

const GENERATED_NAMES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'cargo.lock',
  'composer.lock',
  'gemfile.lock',
  'poetry.lock',
  'go.sum',
  'oclif.manifest.json',
]);
const GENERATED_PATTERN = /(?:\.min\.(?:js|mjs|css)|\.map|\.lock|[.-]manifest\.json|\.snap|\.bundle\.js)$/;
const BUILD_FOLDER = /(?:^|\/)(?:dist|build|out|coverage|vendor|node_modules|__snapshots__)\//;
/** Average characters per line above which a file is taken for minified. */
const MINIFIED_LINE = 300;

/** Whether a file is made by a tool rather than written by a person: by name, folder, or line length. */
export function isGenerated(path: string, bytes: number, lines: number): boolean {
  const lower = path.toLowerCase();
  const base = lower.slice(lower.lastIndexOf('/') + 1);
  return GENERATED_NAMES.has(base) || GENERATED_PATTERN.test(base) || BUILD_FOLDER.test(lower) || bytes / Math.max(1, lines) > MINIFIED_LINE;
}

export interface RankInput {
  /** Path inside its root (the file name is taken from it). */
  path: string;
  bytes: number;
  lines: number;
  /** Occurrences of each query term (by index), 0 when absent. */
  counts: readonly number[];
  /** Most distinct terms on one line. */
  bestLineTerms: number;
}

/** BM25's saturation for whole files (core/bm25.ts). */
const K1 = 1.2;
const NAME_WEIGHT = 1.5;
const GENERATED_WEIGHT = 0.25;

/**
 * Scores for `files`, in their order. `total` is how many files were looked at (for the rarity of
 * a term); `terms` are the stems, for the file-name bonus.
 */
export function rankScores(files: readonly RankInput[], terms: readonly string[], total: number): number[] {
  const docs = Math.max(total, files.length, 1);
  const df = terms.map((_, t) => files.filter((f) => f.counts[t]! > 0).length);
  const rarity = df.map((n) => idf(docs, n));
  const avgBytes = files.reduce((sum, f) => sum + f.bytes, 0) / Math.max(1, files.length) || 1;
  return files.map((file) => {
    const name = file.path.toLowerCase().slice(file.path.lastIndexOf('/') + 1);
    let score = 0;
    terms.forEach((term, t) => {
      const tf = file.counts[t]!;
      const inName = name.includes(term);
      score += termWeight(rarity[t]!, tf, file.bytes, avgBytes, K1);
      if (inName) score += rarity[t]! * NAME_WEIGHT;
    });
    if (terms.length > 1 && file.bestLineTerms > 1)
      score += ((file.bestLineTerms - 1) / (terms.length - 1)) * (rarity.reduce((a, b) => a + b, 0) / terms.length);
    return isGenerated(file.path, file.bytes, file.lines) ? score * GENERATED_WEIGHT : score;
  });
}

/** Indexes of `files` from best to worst; equal scores keep their order. */
export function rankOrder(files: readonly RankInput[], terms: readonly string[], total: number): number[] {
  const scores = rankScores(files, terms, total);
  return files.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
}
