import * as z from 'zod';
import { printable } from '../../core/printable.js';
import { ToolError } from '../../core/errors.js';
import { defineTool, READ_ONLY } from '../../tool/define.js';
import { withinBudget } from '../../retrieve/patterns/bounded.js';
import { compileGlob } from '../../retrieve/patterns/glob.js';
import { contextSides } from '../../retrieve/patterns/match-shape.js';
import { compilePathRules } from '../../retrieve/patterns/path-rules.js';
import type { Root } from '../../retrieve/roots.js';
import type { SearchReport } from '../../retrieve/search.js';
import { nothingSearched, renderSearch, renderSearchItem } from './search-print.js';
import { envelope, fileIndexes, loadRoots, noteLeftOut, pathFilter, refuseHiddenWalk } from './shared.js';

const repoField = z.string().optional().describe('Only this root (default: every root, in configured order).');
const globField = z
  .string()
  .optional()
  .describe(
    'Only files matching this glob: without a slash it matches the file name at any depth ("*.md"), with one the path inside the root ("docs/**/*.md").',
  );
const globsField = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .describe(
    'Only files matching these globs, as rg -g: without a slash a glob matches a name at any depth ("*.md"), with one the path inside the root ("docs/**"); "!" in front leaves out what it matches, and when several match a path, the last one decides.',
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

const contextField = (side: 'before' | 'after', char: string) =>
  z.int().min(0).max(20).optional().describe(`Lines of context ${side} each match, as rg -${char} (default: context, whose side this overrides).`);

/** Over MCP, -o's parts of one line are kept up to this many (`.` on a minified line would be millions). */
const MCP_MOST_PARTS = 1000;

/** Over MCP a search keeps a limit (an agent's context is not the place for every match of a common word). */
const MCP_MAX_LIMIT = 1000;

/** The patterns to search for, after the checks of what goes together (rg's habits in a terminal, a limit over MCP). */
function searchPatterns(
  input: { query?: string | undefined; patterns?: string[] | undefined; files_with_matches: boolean; count: boolean; limit: number },
  surface: string,
): string[] {
  const ctx = { surface };
  const patterns = [...(input.query !== undefined ? [input.query] : []), ...(input.patterns ?? [])];
  if (patterns.length === 0 || patterns.some((p) => p === '')) {
    throw new ToolError('QUERY_EMPTY', patterns.length === 0 ? 'Nothing to search for.' : 'A pattern is empty.', { hint: 'Give the text to search for.' });
  }
  if (ctx.surface === 'cli' && input.query !== undefined && input.patterns?.length) {
    // rg reads the word after -e patterns as a path to search; here it would quietly be one more pattern.
    throw new ToolError('INVALID_INPUT', `With -e, give every pattern with -e: "${input.query}" would be searched for, not searched in.`, {
      hint: 'Choose where to search with --repo or -g (a glob), e.g. -g "src/**".',
    });
  }
  if (input.files_with_matches && input.count) {
    throw new ToolError('INVALID_INPUT', 'Give one of files_with_matches (-l) and count (-c).', { details: { files_with_matches: true, count: true } });
  }
  if (ctx.surface === 'mcp' && (input.limit === 0 || input.limit > MCP_MAX_LIMIT)) {
    throw new ToolError('LIMIT_INVALID', `limit ${input.limit} is for the terminal; give 1-${MCP_MAX_LIMIT}.`, {
      details: { limit: input.limit },
      hint: 'Narrow the search with glob, type or repo, or ask for files_with_matches or count.',
    });
  }
  return patterns;
}

export const search = defineTool({
  name: 'search',
  warm: true,
  featured: 1,
  group: 'retrieve',
  command: {
    id: 'retrieve search',
    args: ['query'],
    // ripgrep's letters and long names where they mean the same; -n and -F are taken as rg
    // takes them (lines are always numbered; the query is literal unless --regex).
    chars: {
      ...{ ignore_case: 'i', context: 'C', before_context: 'B', after_context: 'A', glob: 'g', type: 't', word: 'w', invert: 'v' },
      ...{ files_with_matches: 'l', count: 'c', patterns: 'e', only_matching: 'o', max_count: 'm' },
    },
    flagNames: { word: 'word-regexp', invert: 'invert-match', patterns: 'regexp' },
    habits: {
      'line-number': { char: 'n', description: 'Taken as rg takes it: lines are always numbered.' },
      'fixed-strings': { char: 'F', description: 'Taken as rg takes it: the query is literal text unless --regex.', conflicts: 'regex' },
    },
    examples: [
      '<%= config.bin %> retrieve search TODO',
      '<%= config.bin %> retrieve search "createServer(" -g "*.ts" -g "!*.test.ts" -C 2',
      '<%= config.bin %> retrieve search "\\w+Expression\\(" --regex -t ts --limit 50 --json',
      '<%= config.bin %> retrieve search -w -l config -t md',
      '<%= config.bin %> retrieve search -e TODO -e FIXME -c',
      '<%= config.bin %> retrieve search "export function" -A 3 -m 1',
      '<%= config.bin %> retrieve search "TODO\\(\\w+\\)" --regex -o',
    ],
  },
  title: 'Search file contents',
  description:
    'Search file contents under the roots as ripgrep does: exact text, or a regular expression (regex), and the matching lines in a fixed order (root, path folder by folder as rg --sort path, line), respecting .gitignore, up to the limit (meta.truncated is then true); or only the files that have a match (files_with_matches), or how many lines match in each (count). Files of any size are searched (a long line is cut in what is shown); binary files (a NUL byte) are skipped and counted in skipped.binary.',
  input: z.strictObject({
    query: z.string().optional().describe('Text to find (a JavaScript regular expression when regex is true). Required unless patterns are given.'),
    patterns: z.array(z.string()).optional().describe('Further text to find, as rg -e: a line that matches any of them (or the query) matches.'),
    regex: z.boolean().default(false).describe('Treat the query and patterns as regular expressions.'),
    ignore_case: z.boolean().default(false).describe('Match regardless of case.'),
    word: z.boolean().default(false).describe("Only matches with a non-word character or the line's edge on each side, as rg -w."),
    invert: z.boolean().default(false).describe('The lines that do not match, as rg -v.'),
    glob: globsField,
    type: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe(
        'Only files of these types, as rg -t (py, ts, js, md, go, rust, java, ...; an unknown type is refused with the list). A glob that includes a file takes it whatever its type.',
      ),
    repo: repoField,
    context: z.int().min(0).max(20).default(0).describe('Lines of context before and after each match, as rg -C.'),
    before_context: contextField('before', 'B'),
    after_context: contextField('after', 'A'),
    only_matching: z
      .boolean()
      .default(false)
      .describe(
        "Each match's text (match.matched, at most 1000 a line over MCP; in context lines, match.context_matched by line number), as rg -o; with count, how many matches rather than lines.",
      ),
    max_count: z
      .int()
      .min(0)
      .optional()
      .describe('At most this many matching lines per file, as rg -m; the last one keeps its after-context, whose matching lines are in match.after_matches.'),
    files_with_matches: z.boolean().default(false).describe('Only the files that have a match (result.files), as rg -l; the limit then counts files.'),
    count: z.boolean().default(false).describe('How many lines match in each file that has a match (result.counts), as rg -c; the limit then counts files.'),
    limit: z
      .int()
      .min(0, 'must be 1 or more (0: no limit, in a terminal)')
      .default(200)
      .describe(`Most matches (or files) to return: 1-${MCP_MAX_LIMIT} over MCP; in a terminal any number, 0 for no limit.`),
    hidden: z.boolean().default(false).describe('Search dotfiles and dot-folders too.'),
  }),
  annotations: READ_ONLY,
  fieldCodes: LIMIT_CODES,
  async run(input, ctx) {
    const started = performance.now();
    const patterns = searchPatterns(input, ctx.surface);
    const unlimited = input.limit === 0;
    const report: SearchReport = input.files_with_matches ? 'files' : input.count ? 'counts' : 'lines';
    const globs = typeof input.glob === 'string' ? [input.glob] : (input.glob ?? []);
    const types = typeof input.type === 'string' ? [input.type] : (input.type ?? []);
    const rules = compilePathRules({ globs, types, hidden: input.hidden });
    const { roots, timeoutMs } = await loadRoots(ctx);
    const selected = await rootsFor(roots, input.repo);
    refuseHiddenWalk(ctx, selected, { hidden: input.hidden });
    const [{ compileQuery }, { listFiles, searchRoots }] = await Promise.all([import('../../retrieve/patterns/query.js'), import('../../retrieve/search.js')]);
    const [first, ...more] = patterns as [string, ...string[]];
    const query = { query: first, ...(more.length ? { more } : {}), regex: input.regex, ignoreCase: input.ignore_case, word: input.word, invert: input.invert };
    const { matcher, trigrams, gramGroups, backtracks, parts } = compileQuery(query);
    const index = await fileIndexes(ctx);
    await index?.caughtUp();
    const limit = unlimited ? Number.POSITIVE_INFINITY : input.limit;
    // Matches are printed as they are found with no limit; files and counts are few and come at the end.
    const onMatch = unlimited && report === 'lines' ? ctx.emit : undefined;
    const sides = report === 'lines' ? contextSides(input) : { before: 0, after: 0 };
    const onlyMatching = input.only_matching && report !== 'files';
    const shape = { ...sides, maxCount: input.max_count ?? Number.POSITIVE_INFINITY, ...(ctx.surface === 'mcp' ? { mostParts: MCP_MOST_PARTS } : {}) };
    const signal = ctx.signal;
    let outcome;
    if (backtracks && index) {
      // An expression that may backtrack without bound runs off the main thread of a process that
      // serves others (the index is theirs too), and the path rules with it, in the same worker; a
      // one-shot command holds no one but its caller.
      const { searchInWorker } = await import('../../retrieve/worker-search.js');
      const { files, skipped } = withinBudget(timeoutMs, 'The search', () => listFiles(selected, { hidden: input.hidden, index }));
      const job = {
        query,
        files,
        skipped,
        limit,
        context: 0,
        shape: { ...shape, onlyMatching },
        report,
        stream: onMatch !== undefined,
        ...(rules ? { rules: rules.spec } : {}),
      };
      outcome = await searchInWorker(job, { timeoutMs, ...(signal ? { signal } : {}), ...(onMatch ? { onMatch } : {}) });
    } else if (!index && unlimited) {
      // A one-shot search for every match walks once and searches on every core (rg's habit).
      const include = await pathFilter(rules, { roots: selected, index, timeoutMs, signal });
      const { searchOnAllCores } = await import('../../retrieve/parallel-search.js');
      const asked = { query, shape: { ...shape, onlyMatching }, report, hidden: input.hidden, timeoutMs, ...(signal ? { signal } : {}) };
      outcome = await searchOnAllCores(selected, { ...asked, ...(include ? { include } : {}), ...(onMatch ? { onMatch } : {}) });
    } else {
      const include = await pathFilter(rules, { roots: selected, index, timeoutMs, signal });
      outcome = withinBudget(timeoutMs, 'The search', () =>
        searchRoots(selected, {
          matcher,
          limit,
          shape: { ...shape, ...(onlyMatching ? { parts } : {}) },
          report,
          hidden: input.hidden,
          include,
          index,
          trigrams,
          ...(gramGroups ? { gramGroups } : {}),
          ...(onMatch ? { onMatch } : {}),
        }),
      );
    }
    const { matches, counts, ...stats } = outcome;
    const asked = { query: input.query ?? null, ...(input.patterns?.length ? { patterns: input.patterns } : {}) };
    const found =
      report === 'files' ? { files: matches.map((m) => ({ repo: m.repo, path: m.path })) } : report === 'counts' ? { counts: counts ?? [] } : { matches };
    return envelope({ ...asked, ...found, files_searched: stats.files_searched, skipped: stats.skipped }, input.repo ?? null, started, outcome.truncated);
  },
  render: (r, ui, input) => {
    noteLeftOut(r.result.skipped, ui);
    if (nothingSearched(r.result))
      ui.note(ui.color.yellow('No files were searched: the roots hold no file the filters (-t, -g, --hidden, .gitignore) let through.'));
    return renderSearch(r, ui, input.limit === 0);
  },
  renderItem: renderSearchItem,
  // rg's exit codes: 1 when nothing matched, 2 when no file was searched at all (a -t or -g that
  // left nothing, an empty root): a filter that matched nothing is not an answer of "absent".
  exitCode: (r) => {
    const result = r.result as { matches?: unknown[]; files?: unknown[]; counts?: unknown[] };
    if ((result.matches ?? result.files ?? result.counts ?? []).length > 0) return 0;
    return nothingSearched(r.result) ? 2 : 1;
  },
});

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
  description:
    'List the files of the roots whose path inside their root matches a glob, respecting .gitignore, in a fixed order (root, path as rg --sort path).',
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
