/**
 * Path checks for the retrieve tools, before any file is touched. A path is relative to a root,
 * written with `/` (or `\`); it may start with a root's name to choose that root. Refused, with
 * the retrieval tools' own codes: empty paths (PATH_EMPTY), NUL bytes, absolute paths and `..` that climbs out
 * of the root (PATH_OUT_OF_ROOT). Symlinks are checked later, on the real path at the moment of
 * use (resolve.ts). Pure.
 */
export type PathProblem = { code: 'PATH_EMPTY' | 'PATH_OUT_OF_ROOT'; message: string };

export function normalizeRelative(input: string): { segments: string[] } | PathProblem {
  if (input.trim() === '') return { code: 'PATH_EMPTY', message: 'The path is empty.' };
  if (input.includes('\0')) return { code: 'PATH_OUT_OF_ROOT', message: 'The path contains a NUL byte.' };
  if (/^[\\/]/.test(input) || /^[A-Za-z]:/.test(input) || input.startsWith('~')) {
    return { code: 'PATH_OUT_OF_ROOT', message: `"${input}" is absolute; give a path relative to a root (e.g. docs/guide.md).` };
  }
  const segments: string[] = [];
  for (const part of input.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (segments.length === 0) return { code: 'PATH_OUT_OF_ROOT', message: `"${input}" leads outside its root.` };
      segments.pop();
    } else segments.push(part);
  }
  return { segments };
}

export interface RootChoice {
  /** Roots to look in, in configured order. */
  roots: string[];
  /** The path inside them. */
  segments: string[];
  /** True when the first segment named the root. */
  prefixed: boolean;
}

/**
 * Which roots a path can mean: `repo` if given; else a first segment naming a root selects it
 * (`docs/guide.md`); else every root, in order.
 */
export function chooseRoots(segments: string[], rootNames: readonly string[], repo?: string): RootChoice {
  // With an explicit repo the whole path is inside it, even if it starts with a root's name.
  if (repo !== undefined) return { roots: [repo], segments, prefixed: false };
  if (segments.length > 0 && rootNames.includes(segments[0]!)) {
    return { roots: [segments[0]!], segments: segments.slice(1), prefixed: true };
  }
  return { roots: [...rootNames], segments, prefixed: false };
}

/** True when `child` is `parent` or inside it (no `/a/bc` vs `/a/b` confusion). */
export function isInside(parent: string, child: string, sep = '/'): boolean {
  if (child === parent) return true;
  const base = parent.endsWith(sep) ? parent : parent + sep;
  return child.startsWith(base);
}
