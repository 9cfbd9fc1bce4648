import { SETTING_DEFAULTS } from '../../config/schema/defaults.js';
import { nodeV8 } from '../../core/lazy-builtins.js';
import { createContext, runInContext } from 'node:vm';
import { ToolError } from '../../core/errors.js';

/**
 * Guarantees for what a caller's pattern can cost (a regular expression, a glob):
 *
 * - Regular expressions run on V8's own engine, which switches to its linear-time engine for an
 *   expression that backtracks excessively (`(a+)+$` on a line of a's: milliseconds, not hours).
 *   That engine cannot take the `u` flag, so an expression that it can run is matched without it
 *   (only astral characters in `.` and classes differ); one it cannot (backreferences, lookaround,
 *   \p{...}) keeps `u` and relies on the budget below.
 * - Every search, find and smart search runs under a time budget (retrieve.timeout_ms): past it,
 *   V8 stops the work and the call fails with TIMEOUT. In a long-running process (serve, the
 *   daemon), a regular expression the linear engine cannot run is searched in a worker thread
 *   (worker-search.ts), so that its backtracking never holds the other callers; everything else
 *   stays on the main thread, where a worker's start (~30-50 ms) would cost every call.
 */
let engineReady = false;
/** V8's flags are the process's: a worker that sets them does not depend on what its parent compiled first. */
export function linearEngine(): void {
  if (engineReady) return;
  nodeV8().setFlagsFromString('--enable-experimental-regexp-engine');
  nodeV8().setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  engineReady = true;
}

/** An escape that means something else without the `u` flag (\p{..}, \P{..}, \u{..}), not itself escaped. */
const UNICODE_ONLY = /(?:^|[^\\])(?:\\\\)*\\[pPu]\{/;

/**
 * A caller's regular expression (already known to compile with `flags`), as it is matched, and
 * whether it may backtrack without bound: one that V8's linear engine cannot run (a
 * backreference, lookaround), which a long-running process then runs off its main thread
 * (search-worker.ts).
 */
export function boundedRegExp(source: string, flags: string): { re: RegExp; backtracks: boolean } {
  linearEngine();
  // Without `u`, \p{Lu} is the text "p{Lu}" and \u{1F600} five letters u: it keeps `u`.
  if (UNICODE_ONLY.test(source)) return { re: new RegExp(source, flags), backtracks: true };
  const plain = flags.replace('u', '');
  try {
    new RegExp(source, `${plain}l`); // only to learn whether the linear engine can run it
    return { re: new RegExp(source, plain), backtracks: false };
  } catch {
    return { re: new RegExp(source, flags), backtracks: true };
  }
}

/** Lines at least this long (in characters) are tested by longLineTest. */
export const LONG_LINE = 64 * 1024;
const DEFAULT_BACKTRACKS = 50_000; // V8's own --regexp-backtracks-before-fallback
const LONG_LINE_BACKTRACKS = 4_000_000;

/**
 * How `re` is tested on a long line (a minified bundle's, an embedded file's). V8 moves an
 * expression to its linear engine once one run has backtracked 50,000 times, and an ordinary
 * expression such as `\w+Expression\(` backtracks about once per character: on a 1.9 MB line
 * whose first match is near its end it moved, and the linear engine took 1.3 s there (and
 * hundreds of MB) where backtracking takes 20 ms. So long lines are tested by a copy of the
 * expression (its source ends in an empty group, so V8 compiles it apart from the original),
 * compiled and run under a higher limit: a catastrophic expression still moves to the linear
 * engine on such a line, after at most ~0.1 s. V8 reads the limit when it compiles, and it
 * compiles again as it tiers up, so the limit is raised around every run, then set back.
 */
export function longLineTest(re: RegExp): (text: string) => boolean {
  linearEngine();
  const copy = new RegExp(`${re.source}(?:)`, re.flags.replace(/[gy]/g, ''));
  return (text) => {
    nodeV8().setFlagsFromString(`--regexp-backtracks-before-fallback=${LONG_LINE_BACKTRACKS}`);
    try {
      return copy.test(text);
    } finally {
      nodeV8().setFlagsFromString(`--regexp-backtracks-before-fallback=${DEFAULT_BACKTRACKS}`);
    }
  };
}

/** Over MCP: long enough for a cold search of a large tree on a slow disk, short enough not to hold serve for long. */
export const DEFAULT_RETRIEVE_TIMEOUT_MS = SETTING_DEFAULTS.retrieve.timeout_ms;

let context: object | undefined;

/**
 * QUERY_TOO_COMPLEX for the stack overflow of a regular expression's backtracking on a very long
 * line (`(a|aa)*c` on 16 MB of a's): the caller's pattern met the input, not a fault of mcpkit's.
 */
export function stackOverflow(error: unknown, what: string): ToolError | undefined {
  if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) return undefined;
  return new ToolError('QUERY_TOO_COMPLEX', `${what} stopped: the regular expression is too deep for a line it met (its matcher ran out of stack).`);
}

/** TIMEOUT for work stopped at its budget, here or in a worker (worker-search.ts). */
export function overBudget(ms: number, what: string): ToolError {
  return new ToolError('TIMEOUT', `${what} took longer than ${ms} ms and was stopped.`, {
    details: { timeout_ms: ms },
    hint: 'Narrow it (a repo, a glob, a simpler pattern), or raise retrieve.timeout_ms.',
  });
}

/** Runs synchronous work, stopping it with TIMEOUT when it takes longer than `ms` (QUERY_TOO_COMPLEX when a regular expression overflows the stack). */
export function withinBudget<T>(ms: number, what: string, work: () => T): T {
  if (!Number.isFinite(ms)) {
    try {
      return work();
    } catch (error) {
      throw stackOverflow(error, what) ?? error;
    }
  }
  context ??= createContext({});
  let result: T;
  (context as { work?: () => void }).work = () => {
    result = work();
  };
  try {
    runInContext('work()', context, { timeout: ms });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw overBudget(ms, what);
    throw stackOverflow(error, what) ?? error;
  } finally {
    (context as { work?: () => void }).work = undefined;
  }
  return result!;
}

/**
 * A glob as a matcher of the walk's relative paths that runs in linear time. picomatch's regular
 * expressions guard against `.` and `..` segments, empty segments and (without `dot`) dotfiles
 * with lookaheads, which V8's linear engine cannot run; a walk's paths have none of those
 * (dotfiles are already left out unless hidden), so without the lookaheads the expression means
 * the same here and gets the linear fallback. A glob whose meaning needs a lookahead (an extglob
 * negation such as `!(a|b)`) keeps picomatch's expression and the time budget.
 */
export function linearGlobRegExp(picomatchRe: RegExp): RegExp | undefined {
  linearEngine();
  const stripped = stripLookaheads(picomatchRe.source);
  if (stripped === undefined) return undefined;
  try {
    new RegExp(stripped, `${picomatchRe.flags}l`);
    return new RegExp(stripped, picomatchRe.flags);
  } catch {
    return undefined;
  }
}

/** The source without its `(?!...)` and `(?=...)` groups; undefined when one holds a capture or alternatives that matter. Pure. */
export function stripLookaheads(source: string): string | undefined {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      out += source.slice(i, i + 2);
      i++;
      continue;
    }
    if (c === '[') {
      const end = classEnd(source, i);
      out += source.slice(i, end + 1);
      i = end;
      continue;
    }
    if (source.startsWith('(?!', i) || source.startsWith('(?=', i)) {
      const end = groupEnd(source, i);
      if (end < 0) return undefined;
      i = end;
      continue;
    }
    out += c;
  }
  return out;
}

function classEnd(source: string, start: number): number {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === ']' && i > start + 1) return i;
  }
  return source.length - 1;
}

function groupEnd(source: string, start: number): number {
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(source, i);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}
