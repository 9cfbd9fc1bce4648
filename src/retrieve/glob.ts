import picomatch from 'picomatch';
import { ToolError } from '../core/errors.js';
import { linearGlobRegExp } from './bounded.js';

/**
 * A caller's glob over paths inside a root, as a test (undefined: every path). As in ripgrep's
 * `-g` and in .gitignore, a glob without a slash matches the file's name at any depth (`*.ts`
 * finds `src/a/b.ts`); one with a slash matches the path from the root (`src/*.ts`).
 */
export function compileGlob(glob: string | undefined, hidden: boolean): ((rel: string) => boolean) | undefined {
  if (glob === undefined) return undefined;
  if (glob.trim() === '') throw new ToolError('FILE_GLOB_INVALID', 'The glob is empty.', { hint: 'Write e.g. "*.ts" or "src/**/*.ts", or leave it out.' });
  try {
    const subject = glob.includes('/') ? (rel: string) => rel : (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
    const linear = linearGlob(glob, hidden);
    if (linear) return (rel) => linear.test(subject(rel));
    const match = picomatch(glob, { dot: hidden });
    return (rel) => match(subject(rel));
  } catch (error) {
    throw new ToolError('FILE_GLOB_INVALID', `Invalid glob "${glob}": ${(error as Error).message}`, { details: { glob } });
  }
}

/** The glob's expression when V8's linear engine runs it; undefined for an extglob, whose meaning needs a lookahead. */
function linearGlob(glob: string, hidden: boolean): RegExp | undefined {
  return /[!@?+*]\(/.test(glob) ? undefined : linearGlobRegExp(picomatch.makeRe(glob, { dot: hidden }));
}

/**
 * Whether a valid glob is matched by a backtracking engine (an extglob such as `!(a|b)`): on a
 * long name its time has no bound, so a long-running process matches it in a worker (worker-search.ts).
 */
export function globBacktracks(glob: string, hidden: boolean): boolean {
  return linearGlob(glob, hidden) === undefined;
}
