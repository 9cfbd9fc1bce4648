import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { IgnoreRules } from './ignore-rules.js';
import type { Root } from './roots.js';

/**
 * A synchronous, depth-first walk of one root in byte-wise path order (folders sort as "name/",
 * so the order is that of the full paths), leaving out `.git`, dotfiles unless `hidden`, what
 * .gitignore ignores unless `ignored`, and symlinks (never followed: no loops, no escapes).
 * `visit` returns false to stop early. Synchronous fs calls measured 2-5x faster than the libuv
 * pool for this on these machines (FINDINGS).
 */
export interface WalkOptions {
  hidden?: boolean;
  ignored?: boolean;
  /** Start below the root (a folder path inside it, `/`-separated). */
  under?: string;
}

export function walkFiles(root: Root, options: WalkOptions, visit: (rel: string, abs: string) => boolean): boolean {
  const rules = new IgnoreRules(root.path);
  const recurse = (relDir: string): boolean => {
    let entries;
    try {
      entries = readdirSync(relDir ? join(root.path, relDir) : root.path, { withFileTypes: true });
    } catch {
      return true; // unreadable folder: skip it, as git grep and rg do
    }
    const items = entries
      .filter((e) => (e.isDirectory() || e.isFile()) && e.name !== '.git' && (options.hidden || !e.name.startsWith('.')))
      .map((e) => ({ name: e.name, dir: e.isDirectory(), key: e.isDirectory() ? `${e.name}/` : e.name }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const item of items) {
      const rel = relDir ? `${relDir}/${item.name}` : item.name;
      if (!options.ignored && rules.ignored(rel, item.dir)) continue;
      if (item.dir) {
        if (!recurse(rel)) return false;
      } else if (!visit(rel, join(root.path, rel))) return false;
    }
    return true;
  };
  return recurse(options.under ?? '');
}
