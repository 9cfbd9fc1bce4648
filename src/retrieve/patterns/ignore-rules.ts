import ignore, { type Ignore } from 'ignore';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { compileNameRules, nameVerdict, type NameRule } from './name-rules.js';
import { mayMatchSome, ruleLiterals } from './rule-literals.js';

/**
 * .gitignore as git applies it: every .gitignore from the root down to a path's folder, each
 * matched against the path relative to its own folder, in order, the last match deciding (so a
 * deeper `!keep.me` re-includes), plus .git/info/exclude at the root. Case-sensitive, like git on
 * Linux (the `ignore` package defaults to case-insensitive). Rule files are read once per folder.
 * A root inside a git work tree also takes the .gitignore files of the folders above it up to the
 * work tree's top, and the top's .git/info/exclude, as git and rg do: a root at `repo/sub` leaves
 * out what `repo/.gitignore` ignores.
 */
export class IgnoreRules {
  private readonly cache = new Map<string, RuleSet | null>();
  private outer?: { frames: RuleFrame[]; files: string[] };
  private top?: string | null;

  constructor(private readonly rootPath: string) {}

  /** The top of the git work tree the root is in (looked up once), or undefined. */
  private workTree(): string | undefined {
    if (this.top === undefined) this.top = workTreeTop(this.rootPath) ?? null;
    return this.top ?? undefined;
  }

  /** The rule sets of the enclosing work tree above the root, outermost first; none when the root is a work tree's top or in none. */
  outerFrames(): readonly RuleFrame[] {
    return this.above().frames;
  }

  /** The rule files outerFrames read (or would read, were they there), for a cache of the walk to watch. */
  outerFiles(): readonly string[] {
    return this.above().files;
  }

  private above(): { frames: RuleFrame[]; files: string[] } {
    if (this.outer) return this.outer;
    const top = this.workTree();
    const frames: RuleFrame[] = [];
    const files: string[] = [];
    if (top !== undefined && top !== this.rootPath) {
      // From the top down to the root's parent; each folder's rules see paths relative to it.
      const below = relative(top, this.rootPath).split('/');
      for (let depth = 0; depth < below.length; depth++) {
        const folder = join(top, ...below.slice(0, depth));
        const texts: string[] = [];
        const sources = [...(depth === 0 ? [join(top, '.git', 'info', 'exclude')] : []), join(folder, '.gitignore')];
        for (const file of sources) {
          files.push(file);
          try {
            texts.push(readFileSync(file, 'utf8'));
          } catch {
            /* none */
          }
        }
        if (texts.length === 0) continue;
        const text = texts.join('\n');
        frames.push({ offset: 0, prefix: `${below.slice(depth).join('/')}/`, rules: ruleSet(text) });
      }
    }
    this.outer = { frames, files };
    return this.outer;
  }

  /**
   * The rules a folder adds. `hasGitignore: false` (the walk knows from readdir) skips trying to
   * read a file that is not there: a failed read throws, and exceptions cost ~3 µs per folder.
   */
  rulesOf(dirRel: string, hasGitignore = true): RuleSet | null {
    if (this.cache.has(dirRel)) return this.cache.get(dirRel)!;
    const texts: string[] = [];
    if (dirRel === '' && this.workTree() === this.rootPath) {
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
    const rules = texts.length ? ruleSet(texts.join('\n')) : null;
    this.cache.set(dirRel, rules);
    return rules;
  }

  /** The rule sets that apply inside `dirRel`, outermost first (for a walk that starts below the root). */
  framesFor(dirRel: string): RuleFrame[] {
    const frames: RuleFrame[] = [...this.outerFrames()];
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

function ruleSet(text: string): RuleSet {
  const names = byNameOnly(text) ? compileNameRules(text) : undefined;
  const literals = names ? undefined : ruleLiterals(text);
  return { ignore: ignore({ ignorecase: false }).add(text), ...(names ? { names } : {}), ...(literals ? { literals } : {}) };
}

/** The top of the git work tree a folder is in (the nearest folder up with a .git), or undefined. */
export function workTreeTop(folder: string): string | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
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
  /** Each rule's literal runs (rule-literals.ts): a path without all of some rule's gets no verdict, unasked. */
  literals?: string[][];
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

/**
 * One folder's rules and how a root-relative path becomes relative to that folder: from `offset`
 * for a folder inside the root, after `prefix` (the way from it to the root) for one above it.
 */
export interface RuleFrame {
  offset: number;
  prefix?: string;
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
      const path = frame.prefix === undefined ? rel.slice(frame.offset) : frame.prefix + rel;
      const literals = frame.rules.literals;
      if (literals && !mayMatchSome(literals, path)) continue;
      verdict = frame.rules.ignore.test(isDir ? `${path}/` : path);
    }
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}
