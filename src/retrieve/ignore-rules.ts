import ignore, { type Ignore } from 'ignore';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileNameRules, nameVerdict, type NameRule } from './name-rules.js';

/**
 * .gitignore as git applies it: every .gitignore from the root down to a path's folder, each
 * matched against the path relative to its own folder, in order, the last match deciding (so a
 * deeper `!keep.me` re-includes), plus .git/info/exclude at the root. Case-sensitive, like git on
 * Linux (the `ignore` package defaults to case-insensitive). Rule files are read once per folder.
 */
export class IgnoreRules {
  private readonly cache = new Map<string, RuleSet | null>();

  constructor(private readonly rootPath: string) {}

  /**
   * The rules a folder adds. `hasGitignore: false` (the walk knows from readdir) skips trying to
   * read a file that is not there: a failed read throws, and exceptions cost ~3 µs per folder.
   */
  rulesOf(dirRel: string, hasGitignore = true): RuleSet | null {
    if (this.cache.has(dirRel)) return this.cache.get(dirRel)!;
    const texts: string[] = [];
    if (dirRel === '') {
      try {
        texts.push(readFileSync(join(this.rootPath, '.git', 'info', 'exclude'), 'utf8'));
      } catch {
        /* none */
      }
    }
    if (hasGitignore) {
      try {
        texts.push(readFileSync(join(this.rootPath, dirRel, '.gitignore'), 'utf8'));
      } catch {
        /* none */
      }
    }
    const text = texts.join('\n');
    const names = texts.length && byNameOnly(text) ? compileNameRules(text) : undefined;
    const rules = texts.length ? { ignore: ignore({ ignorecase: false }).add(text), ...(names ? { names } : {}) } : null;
    this.cache.set(dirRel, rules);
    return rules;
  }

  /** The rule sets that apply inside `dirRel`, outermost first (for a walk that starts below the root). */
  framesFor(dirRel: string): RuleFrame[] {
    const frames: RuleFrame[] = [];
    const parts = dirRel ? dirRel.split('/') : [];
    for (let depth = 0; depth <= parts.length; depth++) {
      const folder = parts.slice(0, depth).join('/');
      const rules = this.rulesOf(folder);
      if (rules) frames.push({ offset: folder ? folder.length + 1 : 0, rules });
    }
    return frames;
  }

  /** Whether `rel` (a path inside the root, `/`-separated) is ignored; `isDir` for folder patterns (`build/`). */
  ignored(rel: string, isDir: boolean): boolean {
    const slash = rel.lastIndexOf('/');
    return ignoredBy(this.framesFor(slash < 0 ? '' : rel.slice(0, slash)), rel, isDir);
  }
}

/**
 * One folder's rules. When no pattern holds a slash (but at its end), git matches each pattern
 * against a path's last part only, so a walk (which never enters an excluded folder) may ask by
 * name, with the rules compiled for that (name-rules.ts): the `ignore` package's test costs
 * microseconds, and a walk asks for every name it lists.
 */
export interface RuleSet {
  ignore: Ignore;
  names?: NameRule[];
}

/** Whether every pattern of a .gitignore text matches by name alone (no slash but a trailing one). */
export function byNameOnly(text: string): boolean {
  return text.split(/\r?\n/).every((raw) => {
    const line = raw.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) return true;
    const pattern = line.replace(/^\\?!/, '').replace(/\/$/, '');
    return !pattern.includes('/');
  });
}

/** One folder's rules and where paths relative to that folder start in a root-relative path. */
export interface RuleFrame {
  offset: number;
  rules: RuleSet;
}

/**
 * The last rule set with a verdict on `rel` decides, as in git. `parentsIncluded` (the walk: it
 * only reaches folders that are not excluded) lets name-only rule sets answer by name.
 */
export function ignoredBy(frames: readonly RuleFrame[], rel: string, isDir: boolean, parentsIncluded = false): boolean {
  let ignored = false;
  for (const frame of frames) {
    let verdict;
    const names = parentsIncluded ? frame.rules.names : undefined;
    if (names) verdict = nameVerdict(names, rel.slice(rel.lastIndexOf('/') + 1), isDir);
    else {
      verdict = frame.rules.ignore.test(isDir ? `${rel.slice(frame.offset)}/` : rel.slice(frame.offset));
    }
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}
