import * as z from 'zod';
import { printable } from '../../core/printable.js';
import { ToolError } from '../../core/errors.js';
import { defineTool, READ_ONLY } from '../../tool/define.js';
import { withinBudget } from '../../retrieve/bounded.js';
import { compileGlob } from '../../retrieve/glob.js';
import type { Root } from '../../retrieve/roots.js';
import type { SearchMatch } from '../../retrieve/search.js';
import type { RenderUi } from '../../tool/context.js';
import { envelope, fileIndexes, loadRoots, noteLeftOut, pathFilter, refuseHiddenWalk } from './shared.js';

const repoField = z.string().optional().describe('Only this root (default: every root, in configured order).');
const globField = z
  .string()
  .optional()
  .describe(
    'Only files matching this glob: without a slash it matches the file name at any depth ("*.md"), with one the path inside the root ("docs/**/*.md").',
  );

/** A limit's bounds live in the schema, so clients see them; a value outside is LIMIT_INVALID, the retrieval tools' own code. */
const limitField = (fallback: number, max: number, what: string) =>
  z.int().min(1, `must be from 1 to ${max}`).max(max, `must be from 1 to ${max}`).default(fallback).describe(`Most ${what} to return (1-${max}).`);
const LIMIT_CODES = { limit: 'LIMIT_INVALID' } as const;

async function rootsFor(roots: Root[], repo: string | undefined): Promise<Root[]> {
  const { requireRepo } = await import('../../retrieve/resolve.js');
  requireRepo(roots, repo);
  return repo === undefined ? roots : roots.filter((r) => r.name === repo);
}

export const search = defineTool({
  name: 'search',
  warm: true,
  featured: 1,
  group: 'retrieve',
  command: {
    id: 'retrieve search',
    args: ['query'],
    // ripgrep's letters where they mean the same (-i, -C, -g); -n, its --line-number, is not
    // --limit here (line numbers are always shown), so limits have no letter.
    chars: { ignore_case: 'i', context: 'C', glob: 'g' },
    examples: [
      '<%= config.bin %> retrieve search TODO',
      '<%= config.bin %> retrieve search "createServer(" --glob "**/*.ts" -C 2',
      '<%= config.bin %> retrieve search "\\w+Expression\\(" --regex --repo code --limit 50 --json',
    ],
  },
  title: 'Search file contents',
  description:
    'Find exact text, or a regex with --regex, in the docs and code under the roots, as grep does: the matching lines in a fixed order (root, path byte-wise, line), respecting .gitignore, up to --limit (meta.truncated is then true). Files of any size are searched (a long line is cut in what is shown); binary files (a NUL byte) are skipped and counted in skipped.binary, as ripgrep does.',
  input: z.strictObject({
    query: z.string().describe('Text to find (a JavaScript regular expression with --regex).'),
    regex: z.boolean().default(false).describe('Treat the query as a regular expression.'),
    ignore_case: z.boolean().default(false).describe('Match regardless of case.'),
    glob: globField,
    repo: repoField,
    context: z.int().min(0).max(20).default(0).describe('Lines of context before and after each match.'),
    limit: z
      .int()
      .min(0, 'must be from 1 to 1000 (0: no limit, in a terminal)')
      .max(1000, 'must be from 1 to 1000 (0: no limit, in a terminal)')
      .default(200)
      .describe('Most matches to return (1-1000; in a terminal 0 means no limit, printed as found).'),
    hidden: z.boolean().default(false).describe('Search dotfiles and dot-folders too.'),
  }),
  annotations: READ_ONLY,
  fieldCodes: LIMIT_CODES,
  async run(input, ctx) {
    const started = performance.now();
    if (input.query === '') throw new ToolError('QUERY_EMPTY', 'The query is empty.', { hint: 'Give the text to search for.' });
    // An agent's context is not the place for every match of a common word: over MCP a limit stays.
    if (input.limit === 0 && ctx.surface === 'mcp') {
      throw new ToolError('LIMIT_INVALID', 'limit 0 (no limit) is for the terminal; give 1-1000.', {
        details: { limit: 0 },
        hint: 'Narrow the search with glob or repo, or page with a larger limit.',
      });
    }
    const unlimited = input.limit === 0;
    const glob = compileGlob(input.glob, input.hidden);
    const { roots, timeoutMs } = await loadRoots(ctx);
    const selected = await rootsFor(roots, input.repo);
    refuseHiddenWalk(ctx, selected, { hidden: input.hidden });
    const [{ compileQuery }, { listFiles, searchRoots }] = await Promise.all([import('../../retrieve/query.js'), import('../../retrieve/search.js')]);
    const query = { query: input.query, regex: input.regex, ignoreCase: input.ignore_case };
    const { matcher, trigrams, backtracks } = compileQuery(query);
    const index = await fileIndexes(ctx);
    await index?.caughtUp();
    const limit = unlimited ? Number.POSITIVE_INFINITY : input.limit;
    const onMatch = unlimited ? ctx.emit : undefined;
    const signal = ctx.signal;
    let outcome;
    if (backtracks && index) {
      // An expression that may backtrack without bound runs off the main thread of a process that
      // serves others (the index is theirs too), and the glob with it, in the same worker; a
      // one-shot command holds no one but its caller.
      const { searchInWorker } = await import('../../retrieve/worker-search.js');
      const { files, skipped } = withinBudget(timeoutMs, 'The search', () => listFiles(selected, { hidden: input.hidden, index }));
      const job = {
        query,
        files,
        skipped,
        limit,
        context: input.context,
        stream: onMatch !== undefined,
        ...(glob ? { glob: { glob: glob.glob, hidden: glob.hidden } } : {}),
      };
      outcome = await searchInWorker(job, { timeoutMs, ...(signal ? { signal } : {}), ...(onMatch ? { onMatch } : {}) });
    } else {
      const include = await pathFilter(glob, { roots: selected, index, timeoutMs, signal });
      outcome = withinBudget(timeoutMs, 'The search', () =>
        searchRoots(selected, { matcher, limit, context: input.context, hidden: input.hidden, include, index, trigrams, ...(onMatch ? { onMatch } : {}) }),
      );
    }
    const { matches, ...stats } = outcome;
    return envelope(
      { query: input.query, matches, files_searched: stats.files_searched, skipped: stats.skipped },
      input.repo ?? null,
      started,
      outcome.truncated,
    );
  },
  // With --limit 0 the matches were printed as they were found (renderItem).
  render: (r, ui, input) => {
    noteLeftOut(r.result.skipped, ui);
    return [
      ...(input.limit === 0 ? [] : r.result.matches.map((m) => matchLines(m, ui))),
      ...(r.meta.truncated ? [ui.color.yellow(`(stopped at ${r.result.matches.length} matches; raise --limit for more, or --limit 0 for all)`)] : []),
    ].join('\n');
  },
  renderItem: (m: SearchMatch, ui) => matchLines(m, ui),
});

/** One match as grep prints it: path:line:text, context lines as path-line-text. */
function matchLines(m: SearchMatch, ui: RenderUi): string {
  return [
    ...(m.before ?? []).map((t, i) => ui.color.dim(`${printable(m.path)}-${m.line - (m.before!.length - i)}-${t}`)),
    `${ui.color.magenta(printable(m.path))}:${ui.color.green(String(m.line))}:${m.text}`,
    ...(m.after ?? []).map((t, i) => ui.color.dim(`${printable(m.path)}-${m.line + i + 1}-${t}`)),
  ].join('\n');
}

export const findFiles = defineTool({
  name: 'find_files',
  warm: true,
  featured: 4,
  group: 'retrieve',
  command: {
    id: 'retrieve find',
    args: ['glob'],
    examples: ['<%= config.bin %> retrieve find "**/*.ts"', '<%= config.bin %> retrieve find "docs/**/*.md" --repo docs --json'],
  },
  title: 'Find files by glob',
  description: 'List the files of the roots whose path inside their root matches a glob, respecting .gitignore, in a fixed order (root, path byte-wise).',
  input: z.strictObject({
    glob: z.string().describe('Glob over paths inside a root, e.g. "**/*.md" or "src/**/index.{ts,js}".'),
    repo: repoField,
    limit: limitField(1000, 10000, 'files'),
    hidden: z.boolean().default(false).describe('Include dotfiles and dot-folders.'),
  }),
  annotations: READ_ONLY,
  fieldCodes: LIMIT_CODES,
  async run(input, ctx) {
    const started = performance.now();
    const glob = compileGlob(input.glob, input.hidden)!;
    const { roots, timeoutMs } = await loadRoots(ctx);
    const { findFiles: find } = await import('../../retrieve/search.js');
    const [selected, index] = await Promise.all([rootsFor(roots, input.repo), fileIndexes(ctx)]);
    refuseHiddenWalk(ctx, selected, { hidden: input.hidden });
    const include = (await pathFilter(glob, { roots: selected, index, timeoutMs, signal: ctx.signal }))!;
    const { files, truncated, skipped } = withinBudget(timeoutMs, 'Finding files', () =>
      find(selected, include, { limit: input.limit, hidden: input.hidden, index }),
    );
    return envelope({ glob: input.glob, files, skipped }, input.repo ?? null, started, truncated);
  },
  render: (r, ui) => {
    noteLeftOut(r.result.skipped, ui);
    return r.result.files.map((f) => printable(f.path)).join('\n');
  },
});

export const smartSearchTool = defineTool({
  name: 'smart_search',
  warm: true,
  featured: 2,
  group: 'retrieve',
  command: {
    id: 'retrieve smart-search',
    args: ['query'],
    chars: { glob: 'g' },
    examples: ['<%= config.bin %> retrieve smart-search "how are config edits locked"', '<%= config.bin %> retrieve smart-search timeout --json'],
  },
  title: 'Find the files that answer a question',
  description:
    'Find which files of the docs and code answer a question ("where is auth handled?"): searches every root for its words (case-insensitive, common words ignored, "locked" also finds "lock") and ranks files by how much of the question they hold, rare words and file names weighing most and generated files (lock files, manifests, bundles) last; shows each file\'s best lines. Use search for exact text.',
  input: z.strictObject({
    query: z.string().describe('A question or a few words, e.g. "where is the lock file created".'),
    repo: repoField,
    glob: globField,
    limit: limitField(20, 200, 'files'),
    lines: z.int().min(1).max(20).default(5).describe('Most lines to show per file.'),
  }),
  annotations: READ_ONLY,
  fieldCodes: LIMIT_CODES,
  async run(input, ctx) {
    const started = performance.now();
    if (input.query.trim() === '') throw new ToolError('QUERY_EMPTY', 'The query is empty.', { hint: 'Ask a question or give a few words.' });
    const glob = compileGlob(input.glob, false);
    const { roots, maxFileBytes, timeoutMs } = await loadRoots(ctx);
    const { queryTerms, smartSearch } = await import('../../retrieve/smart-search.js');
    const terms = queryTerms(input.query);
    const [selected, index] = await Promise.all([rootsFor(roots, input.repo), fileIndexes(ctx)]);
    await index?.caughtUp();
    const include = await pathFilter(glob, { roots: selected, index, timeoutMs, signal: ctx.signal });
    const out = withinBudget(timeoutMs, 'The smart search', () =>
      smartSearch(selected, terms, { maxFileBytes, limit: input.limit, linesPerFile: input.lines, include, index }),
    );
    return envelope(
      { query: input.query, terms, files: out.files, total_files: out.total_files, skipped: out.skipped },
      input.repo ?? null,
      started,
      out.truncated,
    );
  },
  render: (r, ui) =>
    r.result.files
      .map((f) =>
        [
          `${ui.color.magenta(printable(f.path))} ${ui.color.dim(`(${f.terms.join(', ')})`)}`,
          ...f.lines.map((l) => `  ${ui.color.green(String(l.line))}: ${l.text}`),
        ].join('\n'),
      )
      .join('\n') || ui.color.dim(`No file contains ${r.result.terms.join(', ')}.`),
});
