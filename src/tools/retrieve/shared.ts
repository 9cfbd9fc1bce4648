import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { SETTING_DEFAULTS } from '../../config/defaults.js';
import { perProcess, type RenderUi, type ToolContext } from '../../tool/context.js';
import type { FileIndexes } from '../../retrieve/file-index.js';
import { DEFAULT_RETRIEVE_TIMEOUT_MS } from '../../retrieve/bounded.js';
import type { Root } from '../../retrieve/roots.js';
import type { CompiledGlob } from '../../retrieve/glob.js';

export const DEFAULT_MAX_FILE_BYTES = SETTING_DEFAULTS.retrieve.max_file_bytes;

/** The configured roots, checked (fail fast: CONFIG_INVALID with MISSING_ROOT, ROOT_NOT_FOUND, ...). */
export async function loadRoots(ctx: ToolContext): Promise<{ roots: Root[]; maxFileBytes: number; timeoutMs: number }> {
  const config = await ctx.config();
  const [{ rootSpecs, validateRoots }, { requireUsable }] = await Promise.all([import('../../retrieve/roots.js'), import('../../config/problems.js')]);
  requireUsable(config, 'retrieve');
  const roots = validateRoots(rootSpecs({ configured: config.retrieve.roots, configDir: dirname(ctx.configLocation.path), env: ctx.env, cwd: ctx.cwd }));
  // The budget protects the other clients of serve; a person at a terminal stops a slow search with Ctrl-C.
  const timeoutMs =
    ctx.surface === 'mcp' ? (config.retrieve.timeout_ms ?? DEFAULT_RETRIEVE_TIMEOUT_MS) : (config.retrieve.timeout_ms ?? Number.POSITIVE_INFINITY);
  return { roots, maxFileBytes: config.retrieve.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES, timeoutMs };
}

/** Where the process cache keeps the file indexes (the daemon's status reads them there). */
export const FILE_INDEXES_KEY = 'retrieve.fileIndexes';

/**
 * The caller's compiled glob as the test of paths inside a root that a tool applies. In a process
 * that serves others (it has an index), a glob only a backtracking engine matches (an extglob) is
 * matched in a worker over the listed paths, and the test becomes a lookup of that answer: the
 * main thread never runs it.
 */
export async function pathFilter(
  include: CompiledGlob | undefined,
  options: { roots: readonly Root[]; index: FileIndexes | undefined; timeoutMs: number; signal: AbortSignal | undefined },
): Promise<((rel: string) => boolean) | undefined> {
  if (!include?.backtracks || !options.index) return include;
  const [{ listFiles, relOf }, { globInWorker }] = await Promise.all([import('../../retrieve/search.js'), import('../../retrieve/worker-search.js')]);
  const { files } = listFiles(options.roots, { hidden: include.hidden, index: options.index });
  const paths = [...new Set(files.map(relOf))];
  const matched = new Set(
    await globInWorker(
      { glob: include.glob, hidden: include.hidden, paths },
      { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) },
    ),
  );
  return (rel) => matched.has(rel);
}

/** The process's remembered walks and reads (serve only; see retrieve/file-index.ts). */
export function fileIndexes(ctx: ToolContext): Promise<FileIndexes> | undefined {
  return perProcess(ctx, FILE_INDEXES_KEY, () => import('../../retrieve/file-index.js').then(({ FileIndexes }) => new FileIndexes({ watch: true })));
}

/** The retrieval tools' shared envelope: `{ result, meta: { repo, duration_ms, truncated } }`. */
export interface Envelope<T> {
  result: T;
  meta: { repo: string | null; duration_ms: number; truncated: boolean };
}

export function envelope<T>(result: T, repo: string | null, started: number, truncated = false): Envelope<T> {
  return { result, meta: { repo, duration_ms: Math.round(performance.now() - started), truncated } };
}

/** `N<tab>text` lines from `first` (1-based): compact for a model, easy to cite. */
export function numbered(lines: readonly string[], first: number): string {
  return lines.map((line, i) => `${first + i}\t${line}`).join('\n');
}

export type { ToolContext };

/**
 * The roots check `serve` makes before answering: configured roots (or DOCS_ROOT / CODE_ROOT) must
 * exist. The config read here is the context's own (loaded once, and reused by the first request);
 * with no config file and no variables nothing is read.
 */
export async function checkConfiguredRoots(ctx: ToolContext): Promise<void> {
  const fromEnv = ctx.env.DOCS_ROOT !== undefined || ctx.env.CODE_ROOT !== undefined;
  if (!fromEnv && !existsSync(ctx.configLocation.path)) return;
  const config = await ctx.config();
  // A retrieve section set aside for its problems was named at start; the other groups still serve.
  if (config.unusable?.retrieve || (!fromEnv && !config.retrieve.roots)) return;
  await loadRoots(ctx);
}

/** Says on stderr what the walk left out, and why. */
export function noteLeftOut(skipped: { path_too_long: number; name_not_utf8: number }, ui: RenderUi): void {
  const entries = (n: number) => `${n} ${n === 1 ? 'entry was' : 'entries were'} left out`;
  if (skipped.path_too_long > 0) ui.note(`${entries(skipped.path_too_long)}: the path is longer than the system takes (PATH_MAX, 4096 bytes).`);
  if (skipped.name_not_utf8 > 0) ui.note(`${entries(skipped.name_not_utf8)}: the name is not valid UTF-8.`);
}
