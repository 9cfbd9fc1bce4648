import picomatch from 'picomatch';
import { ToolError } from '../core/errors.js';
import { linearGlobRegExp } from './bounded.js';

/**
 * A caller's glob over paths inside a root, as a test (undefined: every path).
 */
export function compileGlob(glob: string | undefined, hidden: boolean): ((rel: string) => boolean) | undefined {
  if (glob === undefined) return undefined;
  if (glob.trim() === '') throw new ToolError('FILE_GLOB_INVALID', 'The glob is empty.', { hint: 'Write e.g. "**/*.ts", or leave it out.' });
  try {
    const linear = /[!@?+*]\(/.test(glob) ? undefined : linearGlobRegExp(picomatch.makeRe(glob, { dot: hidden }));
    if (linear) return (rel) => linear.test(rel);
    return picomatch(glob, { dot: hidden });
  } catch (error) {
    throw new ToolError('FILE_GLOB_INVALID', `Invalid glob "${glob}": ${(error as Error).message}`, { details: { glob } });
  }
}
