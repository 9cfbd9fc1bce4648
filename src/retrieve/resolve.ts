import { realpathSync, statSync } from 'node:fs';
import { accessDenied } from './safe-open.js';
import { join, relative, sep } from 'node:path';
import { ToolError } from '../core/errors.js';
import { chooseRoots, isInside, normalizeRelative, type RootChoice } from './paths.js';
import type { Root } from './roots.js';

/**
 * A user's path, resolved to one real file or folder inside one root. The real path is checked at
 * the moment of use, so a symlink whose target lies outside its root is refused, whatever the path
 * looks like; a symlink loop is an error, not a hang.
 */
export interface ResolvedPath {
  root: Root;
  /** Path inside the root, with `/`, as the user should write it after the root name. */
  rel: string;
  real: string;
  kind: 'file' | 'dir';
}

export type Want = 'file' | 'dir';

export function requireRepo(roots: readonly Root[], repo: string | undefined): void {
  if (repo !== undefined && !roots.some((r) => r.name === repo)) {
    throw new ToolError('REPO_INVALID', `No root named "${repo}".`, {
      details: { repo, roots: roots.map((r) => r.name) },
      hint: `Roots: ${roots.map((r) => r.name).join(', ')} (retrieve.roots in the config).`,
    });
  }
}

export function resolvePath(input: string, roots: readonly Root[], want: Want, repo?: string): ResolvedPath {
  requireRepo(roots, repo);
  const normal = normalizeRelative(input);
  if ('code' in normal) throw new ToolError(normal.code, normal.message, { details: { path: input } });
  const choice = chooseRoots(
    normal.segments,
    roots.map((r) => r.name),
    repo,
  );
  if (choice.prefixed) {
    // "code/src" names root "code"; failing that, it may be a folder called "code" inside a root.
    try {
      return lookup(input, roots, want, choice);
    } catch (error) {
      if (!(error instanceof ToolError) || (error.code !== 'FILE_NOT_FOUND' && error.code !== 'DIR_NOT_FOUND')) throw error;
      try {
        return lookup(input, roots, want, { roots: roots.map((r) => r.name), segments: normal.segments, prefixed: false });
      } catch {
        throw error;
      }
    }
  }
  return lookup(input, roots, want, choice);
}

function lookup(input: string, roots: readonly Root[], want: Want, choice: RootChoice): ResolvedPath {
  const hits: ResolvedPath[] = [];
  const wrongKind: string[] = [];
  for (const name of choice.roots) {
    const root = roots.find((r) => r.name === name)!;
    const candidate = join(root.path, ...choice.segments);
    let real: string;
    try {
      real = realpathSync(candidate);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new ToolError('PATH_OUT_OF_ROOT', `"${input}" is a symlink loop.`, { details: { path: input, repo: name } });
      if (code === 'EACCES' || code === 'EPERM') throw accessDenied([name, ...choice.segments].join('/'));
      continue;
    }
    if (!isInside(root.path, real, sep)) {
      throw new ToolError('PATH_OUT_OF_ROOT', `"${input}" leads outside root "${name}" (through a symlink).`, { details: { path: input, repo: name } });
    }
    const stats = statSync(real, { throwIfNoEntry: false });
    if (!stats) continue; // gone since it was resolved: not found, like a name that never was
    const kind = stats.isDirectory() ? 'dir' : 'file';
    const rel = choice.segments.join('/');
    if (kind !== want) {
      wrongKind.push(`${name}/${rel}`);
      continue;
    }
    hits.push({ root, rel, real, kind });
  }
  if (hits.length > 1) {
    throw new ToolError('PATH_AMBIGUOUS', `"${input}" exists in several roots: ${hits.map((h) => h.root.name).join(', ')}.`, {
      details: { path: input, roots: hits.map((h) => h.root.name) },
      hint: `Prefix the root's name (e.g. ${hits[0]!.root.name}/${input}) or pass repo.`,
    });
  }
  if (hits.length === 1) return hits[0]!;
  const what = want === 'dir' ? 'folder' : 'file';
  throw new ToolError(
    want === 'dir' ? 'DIR_NOT_FOUND' : 'FILE_NOT_FOUND',
    `No ${what} "${input}" in ${choice.roots.length === 1 ? `root "${choice.roots[0]}"` : `roots ${choice.roots.join(', ')}`}.`,
    {
      details: { path: input, roots: choice.roots, ...(wrongKind.length ? { [`not_a_${what}`]: wrongKind } : {}) },
      hint: wrongKind.length
        ? `${wrongKind.join(', ')} is a ${want === 'dir' ? 'file' : 'folder'}.`
        : 'List a folder with retrieve ls (list_dir) to see what is there.',
    },
  );
}

/** The path a result shows: root name and the path inside it. */
export function displayPath(root: Root, real: string): string {
  const inside = relative(root.path, real).split(sep).join('/');
  return inside ? `${root.name}/${inside}` : root.name;
}
