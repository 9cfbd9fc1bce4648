import ignore, { type Ignore } from 'ignore';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * .gitignore as git applies it: every .gitignore from the root down to a path's folder, each
 * matched against the path relative to its own folder, in order, the last match deciding (so a
 * deeper `!keep.me` re-includes), plus .git/info/exclude at the root. Case-sensitive, like git on
 * Linux (the `ignore` package defaults to case-insensitive). Rule files are read once per folder.
 */
export class IgnoreRules {
  private readonly cache = new Map<string, Ignore | null>();

  constructor(private readonly rootPath: string) {}

  private rulesOf(dirRel: string): Ignore | null {
    if (this.cache.has(dirRel)) return this.cache.get(dirRel)!;
    const texts: string[] = [];
    if (dirRel === '') {
      try {
        texts.push(readFileSync(join(this.rootPath, '.git', 'info', 'exclude'), 'utf8'));
      } catch {
        /* none */
      }
    }
    try {
      texts.push(readFileSync(join(this.rootPath, dirRel, '.gitignore'), 'utf8'));
    } catch {
      /* none */
    }
    const rules = texts.length ? ignore({ ignorecase: false }).add(texts.join('\n')) : null;
    this.cache.set(dirRel, rules);
    return rules;
  }

  /** Whether `rel` (a path inside the root, `/`-separated) is ignored; `isDir` for folder patterns (`build/`). */
  ignored(rel: string, isDir: boolean): boolean {
    const parts = rel.split('/');
    let ignored = false;
    for (let depth = 0; depth < parts.length; depth++) {
      const rules = this.rulesOf(parts.slice(0, depth).join('/'));
      if (!rules) continue;
      const sub = parts.slice(depth).join('/') + (isDir ? '/' : '');
      const verdict = rules.test(sub);
      if (verdict.ignored) ignored = true;
      else if (verdict.unignored) ignored = false;
    }
    return ignored;
  }
}
