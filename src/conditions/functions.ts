import { createRequire } from 'node:module';
import { posix } from 'node:path';
import type { RE2JS } from 're2js';

/**
 * The functions mcpkit adds to its conditions' CEL (./engine.ts), pure. Each refuses what it
 * cannot decide soundly rather than guess: a condition that errs refuses its call.
 */

let re2: typeof RE2JS | undefined;

/** RE2 (re2js), loaded on first use: the config schema imports this file, and most commands check no condition. */
function engine(): typeof RE2JS {
  return (re2 ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS);
}

/** Why an argument cannot be judged: the expression's evaluation fails, and the call is refused. */
export class ConditionInputError extends Error {}

/**
 * Whether `path` is `root` or inside it, lexically: `.` and `..` resolved, repeated slashes
 * folded, no file system read (a symlink is judged by its name, not its target). Only absolute
 * paths are judged: a relative path, `~`, or one with a NUL is under nothing (the upstream would
 * resolve it against a folder the condition cannot see).
 */
export function under(path: string, root: string | readonly string[]): boolean {
  const roots = typeof root === 'string' ? [root] : root;
  if (!isJudgeable(path)) return false;
  const resolved = posix.normalize(path);
  return roots.some((r) => {
    if (!isJudgeable(r)) throw new ConditionInputError(`under(): the root "${r}" is not an absolute path`);
    const base = posix.normalize(r).replace(/\/+$/, '');
    return resolved === base || resolved === `${base}/` || resolved.startsWith(`${base}/`);
  });
}

function isJudgeable(path: string): boolean {
  return typeof path === 'string' && path.startsWith('/') && !path.includes('\0');
}

/**
 * Glob patterns for `glob(text, pattern)`: `*` any run without "/", `**` any run, `?` one
 * character but "/", `[abc]` / `[!a]` a class, `{a,b}` alternatives, `\x` a literal x. Compiled
 * for RE2 (linear in the text, whatever the pattern).
 */
export function globMatches(text: string, pattern: string): boolean {
  return compiledGlob(pattern, 'path').test(text);
}

/** A glob over a tool's published name: like globMatches, but `*` and `?` cross "/" too. */
export function nameGlob(pattern: string): (name: string) => boolean {
  const re = compiledGlob(pattern, 'name');
  return (name) => re.test(name);
}

const GLOBS = new Map<string, RE2JS>();
const MAX_CACHED = 256;

function compiledGlob(pattern: string, mode: 'path' | 'name'): RE2JS {
  const key = `${mode}\0${pattern}`;
  let re = GLOBS.get(key);
  if (!re) {
    re = engine().compile(`^(?s:${globSource(pattern, mode)})$`);
    if (GLOBS.size >= MAX_CACHED) GLOBS.delete(GLOBS.keys().next().value!);
    GLOBS.set(key, re);
  }
  return re;
}

/** A glob as an RE2 pattern; throws ConditionInputError for an unclosed "{". */
export function globSource(glob: string, mode: 'path' | 'name'): string {
  const any = mode === 'path' ? '[^/]' : '.';
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\' && i + 1 < glob.length) out += engine().quote(glob[++i]!);
    else if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += `${any}*`;
    else if (c === '?') out += any;
    else if (c === '[' && glob.indexOf(']', i + 2) !== -1) {
      const end = glob.indexOf(']', i + 2);
      let body = glob.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^' : ''}${body.replace(/\\/g, '\\\\').replace(/\[/g, '\\[')}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else out += engine().quote(c);
  }
  if (braces > 0) throw new ConditionInputError(`the glob "${glob}" has a "{" without its "}"`);
  return out;
}

const PATTERNS = new Map<string, RE2JS>();

/** CEL's `matches`: RE2 syntax, a match anywhere in the text, linear in the text's length. */
export function linearMatches(text: string, pattern: string): boolean {
  let re = PATTERNS.get(pattern);
  if (!re) {
    try {
      re = engine().compile(pattern);
    } catch (error) {
      throw new ConditionInputError(`matches(): the pattern does not compile (${(error as Error).message})`);
    }
    if (PATTERNS.size >= MAX_CACHED) PATTERNS.delete(PATTERNS.keys().next().value!);
    PATTERNS.set(pattern, re);
  }
  return re.test(text);
}

/**
 * `json(value)`: the value as JSON text, so `size(json(args))` bounds an argument's size. CEL's
 * integers are BigInts and its maps may be Maps: written as JSON numbers and objects.
 */
export function jsonText(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'bigint') return Number(v);
      if (v instanceof Map) return Object.fromEntries(v);
      if (v instanceof Set) return [...v];
      if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
      return v;
    }) ?? 'null'
  );
}
