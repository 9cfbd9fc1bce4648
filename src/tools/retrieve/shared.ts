import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { userConfigPath } from '../../config/locate.js';
import { ownFiles, type OwnFiles } from '../../config/files/own-files.js';
import { SETTING_DEFAULTS } from '../../config/schema/defaults.js';
import { perProcess, type RenderUi, type ToolContext } from '../../tool/context.js';
import type { FileIndexes } from '../../retrieve/file-index.js';
import { DEFAULT_RETRIEVE_TIMEOUT_MS } from '../../retrieve/patterns/bounded.js';
import type { Root, RootSpec } from '../../retrieve/roots.js';
import { ToolError } from '../../core/errors.js';
import type { CompiledGlob } from '../../retrieve/patterns/glob.js';
import type { PathRules } from '../../retrieve/patterns/path-rules.js';

export const DEFAULT_MAX_FILE_BYTES = SETTING_DEFAULTS.retrieve.max_file_bytes;

/**
 * The folder of the root `code` when the config names none (nor DOCS_ROOT / CODE_ROOT): for a
 * person at a terminal, where the command runs; for serve, the folder of its config file, when it
 * is a project's (named by --config or MCPKIT_CONFIG, or ./mcpkit.yaml): a client starts serve
 * wherever it likes (often / or the home folder), which is no choice of the person's. Without a
 * project config file, serve has no root.
 */
export function implicitRoot(ctx: Pick<ToolContext, 'surface' | 'cwd' | 'configLocation' | 'env'>): string | undefined {
  if (ctx.surface === 'cli') return ctx.cwd;
  const folder = dirname(ctx.configLocation.path);
  // mcpkit's own folder of the user config is no project, however it was named.
  const ownFolder = ctx.configLocation.source === 'user' || folder === dirname(userConfigPath(ctx.env));
  return !ownFolder && existsSync(ctx.configLocation.path) ? folder : undefined;
}

/** The roots as configured or implied, unchecked; empty when there are none. */
export async function rootSpecsOf(ctx: ToolContext): Promise<RootSpec[]> {
  const config = await ctx.config();
  const [{ rootSpecs }, { requireUsable }] = await Promise.all([import('../../retrieve/roots.js'), import('../../config/check/problems.js')]);
  requireUsable(config, 'retrieve');
  return rootSpecs({ configured: config.retrieve.roots, configDir: dirname(ctx.configLocation.path), env: ctx.env, cwd: ctx.cwd, implicit: implicitRoot(ctx) });
}

/** The configured roots, checked (fail fast: CONFIG_INVALID with MISSING_ROOT, ROOT_NOT_FOUND, ...). */
export async function loadRoots(ctx: ToolContext): Promise<{ roots: Root[]; maxFileBytes: number; timeoutMs: number }> {
  const config = await ctx.config();
  const { validateRoots } = await import('../../retrieve/roots.js');
  const specs = await rootSpecsOf(ctx);
  if (specs.length === 0) {
    throw new ToolError(
      'NOT_FOUND',
      'There is no root to read: no retrieve.roots in the config, no DOCS_ROOT or CODE_ROOT, and no project config file whose folder would be one.',
      {
        hint: 'Name the folders agents may read in retrieve.roots (e.g. { code: . }) of a config given with --config or MCPKIT_CONFIG, or set CODE_ROOT.',
      },
    );
  }
  const checked = validateRoots(specs);
  // Agents never reach mcpkit's own files through a root: the walk and the open honour `withheld`.
  const withheld = ctx.surface === 'mcp' ? ownFilesOf(ctx) : undefined;
  const roots = withheld ? checked.map((root) => ({ ...root, withheld })) : checked;
  // The budget protects the other clients of serve; a person at a terminal stops a slow search with Ctrl-C.
  const timeoutMs =
    ctx.surface === 'mcp' ? (config.retrieve.timeout_ms ?? DEFAULT_RETRIEVE_TIMEOUT_MS) : (config.retrieve.timeout_ms ?? Number.POSITIVE_INFINITY);
  return { roots, maxFileBytes: config.retrieve.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES, timeoutMs };
}

/** mcpkit's own files as this context knows them (its config, pins and audit log; its folders). */
export function ownFilesOf(ctx: ToolContext): OwnFiles {
  return ctx.ownFiles?.() ?? ownFiles({ configPath: ctx.configLocation.path, env: ctx.env });
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
  include: CompiledGlob | PathRules | undefined,
  options: { roots: readonly Root[]; index: FileIndexes | undefined; timeoutMs: number; signal: AbortSignal | undefined },
): Promise<((rel: string) => boolean) | undefined> {
  if (!include?.backtracks || !options.index) return include;
  const [{ listFiles, relOf }, { globInWorker }] = await Promise.all([import('../../retrieve/search.js'), import('../../retrieve/worker-search.js')]);
  const hidden = 'spec' in include ? include.spec.hidden : include.hidden;
  const { files } = listFiles(options.roots, { hidden, index: options.index });
  const paths = [...new Set(files.map(relOf))];
  const source = 'spec' in include ? { rules: include.spec } : { glob: include.glob };

  const matched = new Set(
    await globInWorker({ ...source, hidden, paths }, { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) }),
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

/** Whether a path inside a root is a dotfile, in a dot-folder, or ignored by .gitignore (checked folder by folder, as a walk goes). */
export async function hiddenInRoot(root: Root, rel: string): Promise<'dotfile' | 'ignored' | undefined> {
  const parts = rel.split('/').filter(Boolean);
  if (parts.some((p) => p.startsWith('.'))) return 'dotfile';
  const { IgnoreRules } = await import('../../retrieve/patterns/ignore-rules.js');
  const rules = new IgnoreRules(root.path);
  for (let depth = 1; depth <= parts.length; depth++) {
    if (rules.ignored(parts.slice(0, depth).join('/'), depth < parts.length)) return 'ignored';
  }
  return undefined;
}

/**
 * Over MCP, what listings leave out (dotfiles, dot-folders, what .gitignore ignores) is not read
 * either, unless its root opts in (retrieve.roots.NAME.hidden: true): a key in ~/.ssh or a .env
 * must not be one open_file away from an agent. A person at a terminal reads what they name.
 */
export async function refuseHiddenFile(ctx: ToolContext, root: Root, rel: string, display: string): Promise<void> {
  if (ctx.surface !== 'mcp') return;
  // mcpkit's own files are refused where they are opened (retrieve/safe-open.ts), whatever the root allows.
  if (root.hidden) return;
  const why = await hiddenInRoot(root, rel);
  if (!why) return;
  throw new ToolError(
    'PATH_HIDDEN',
    `${display} is ${why === 'dotfile' ? 'a dotfile (or in a dot-folder)' : 'ignored by .gitignore'}, which root "${root.name}" does not serve to agents.`,
    {
      details: { path: display, repo: root.name, reason: why },
      hint: `A person can read it in a terminal; to let agents read such files, set retrieve.roots.${root.name}: { path: ..., hidden: true }.`,
    },
  );
}

/** Over MCP, listing or searching dotfiles and ignored files (hidden, ignored) needs roots that opt in, as refuseHiddenFile. */
export function refuseHiddenWalk(ctx: ToolContext, roots: readonly Root[], asked: { hidden?: boolean; ignored?: boolean }): void {
  if (ctx.surface !== 'mcp' || !(asked.hidden || asked.ignored)) return;
  const closed = roots.filter((r) => !r.hidden);
  if (closed.length === 0) return;
  const flag = asked.hidden ? 'hidden' : 'ignored';
  throw new ToolError(
    'PATH_HIDDEN',
    `${flag}: true shows dotfiles${asked.ignored ? ' and ignored files' : ''}, which ${closed.map((r) => `root "${r.name}"`).join(', ')} does not serve to agents.`,
    {
      details: { roots: closed.map((r) => r.name) },
      hint: `Leave out ${flag}, or set retrieve.roots.NAME: { path: ..., hidden: true } for a root whose dotfiles agents may see.`,
    },
  );
}

/** serve's line at start on what agents may read: each root and why it is one, or that there is none. */
export async function servedRootsLine(ctx: ToolContext): Promise<string> {
  const specs = await rootSpecsOf(ctx).catch(() => undefined);
  if (specs === undefined) return 'retrieve: the retrieve section of the config cannot be used, so no root is read';
  if (specs.length === 0) return 'retrieve reads no folder: name the folders agents may read in retrieve.roots (or CODE_ROOT)';
  const config = await ctx.config();
  const why = (s: RootSpec) =>
    config.retrieve.roots?.[s.name] !== undefined ? 'retrieve.roots' : s.given.startsWith('$') ? s.given.slice(1) : "this config file's folder";
  return `retrieve reads ${specs.map((s) => `${s.name}=${s.path} (${why(s)}${s.hidden ? ', dotfiles too' : ''})`).join(', ')}`;
}

/** Says on stderr what the walk left out, and why. */
export function noteLeftOut(skipped: { path_too_long: number; name_not_utf8: number }, ui: RenderUi): void {
  const entries = (n: number) => `${n} ${n === 1 ? 'entry was' : 'entries were'} left out`;
  if (skipped.path_too_long > 0) ui.note(`${entries(skipped.path_too_long)}: the path is longer than the system takes (PATH_MAX, 4096 bytes).`);
  if (skipped.name_not_utf8 > 0) ui.note(`${entries(skipped.name_not_utf8)}: the name is not valid UTF-8.`);
}
