import picomatch from 'picomatch';
import { ToolError } from '../../core/errors.js';
import { linearGlobRegExp } from './bounded.js';

/**
 * A caller's glob as a test of paths inside a root, with what it was made from. `backtracks`: it
 * is matched by a backtracking engine (an extglob such as `!(a|b)`), whose time on a long name has
 * no bound, so a long-running process matches it in a worker (worker-search.ts).
 */
export interface CompiledGlob {
  (rel: string): boolean;
  readonly glob: string;
  readonly hidden: boolean;
  readonly backtracks: boolean;
}

/**
 * A caller's glob over paths inside a root, as a test (undefined: every path). As in ripgrep's
 * `-g` and in .gitignore, a glob without a slash matches the file's name at any depth (`*.ts`
 * finds `src/a/b.ts`); one with a slash, or `fromRoot`, matches the path from the root (`src/*.ts`).
 */
export function compileGlob(glob: string | undefined, hidden: boolean, options: { fromRoot?: boolean } = {}): CompiledGlob | undefined {
  if (glob === undefined) return undefined;
  if (glob.trim() === '') throw new ToolError('FILE_GLOB_INVALID', 'The glob is empty.', { hint: 'Write e.g. "*.ts" or "src/**/*.ts", or leave it out.' });
  try {
    const subject = options.fromRoot || glob.includes('/') ? (rel: string) => rel : (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
    const linear = linearGlob(glob, hidden);
    const match = linear ? (name: string) => linear.test(name) : picomatch(glob, { dot: hidden });
    return Object.assign((rel: string) => match(subject(rel)), { glob, hidden, backtracks: linear === undefined });
  } catch (error) {
    throw new ToolError('FILE_GLOB_INVALID', `Invalid glob "${glob}": ${(error as Error).message}`, { details: { glob } });
  }
}

/** The glob's expression when V8's linear engine runs it; undefined for an extglob, whose meaning needs a lookahead. */
function linearGlob(glob: string, hidden: boolean): RegExp | undefined {
  return /[!@?+*]\(/.test(glob) ? undefined : linearGlobRegExp(picomatch.makeRe(glob, { dot: hidden }));
}
