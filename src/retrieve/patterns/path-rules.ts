import picomatch from 'picomatch';
import { ToolError } from '../../core/errors.js';
import { closestNames } from '../../core/suggest.js';
import { FILE_TYPES } from './file-types.js';
import { compileGlob, type CompiledGlob } from './glob.js';

/**
 * Which files a search takes, as rg's `-g` and `-t` decide (plain data, so a worker can build the
 * same test): globs in command-line order, `!` in front to exclude; file type names.
 */
export interface PathRulesSpec {
  globs: readonly string[];
  types: readonly string[];
  hidden: boolean;
}

/** The test of a path inside a root, with what it was made from. */
export interface PathRules {
  (rel: string): boolean;
  readonly spec: PathRulesSpec;
  /** A glob matched by a backtracking engine (an extglob): a long-running process tests paths in a worker. */
  readonly backtracks: boolean;
}

interface Rule {
  exclude: boolean;
  /** A glob that ends in `/` matches folders only. */
  foldersOnly: boolean;
  test: CompiledGlob;
}

/**
 * rg's precedence: the last glob that matches a path decides (`-g '*.ts' -g '!a.ts'` leaves a.ts
 * out, the other order keeps it); a folder that an exclude decides for is left out with all it
 * holds; a file no glob matches is left out when any glob includes, and otherwise kept when it
 * is of one of the types (or no type was asked for). A glob that includes a file keeps it whatever
 * its type. Without a slash a glob matches a name at any depth, with one (or a leading `/`) the
 * path from the root. Undefined when there is nothing to decide. Pure.
 */
export function compilePathRules(spec: PathRulesSpec): PathRules | undefined {
  if (spec.globs.length === 0 && spec.types.length === 0) return undefined;
  const rules = spec.globs.map((raw) => rule(raw, spec.hidden));
  const includes = rules.some((r) => !r.exclude);
  const ofType = typeTest(spec.types, spec.hidden);
  const folderLeftOut = new Map<string, boolean>();
  const lastMatch = (path: string, folder: boolean): Rule | undefined => {
    for (let i = rules.length - 1; i >= 0; i--) {
      const r = rules[i]!;
      if ((folder || !r.foldersOnly) && r.test(path)) return r;
    }
    return undefined;
  };
  const leftOutFolder = (folder: string): boolean => {
    let known = folderLeftOut.get(folder);
    if (known === undefined) {
      const parent = folder.lastIndexOf('/');
      known = (parent > 0 && leftOutFolder(folder.slice(0, parent))) || lastMatch(folder, true)?.exclude === true;
      folderLeftOut.set(folder, known);
    }
    return known;
  };
  const test = (rel: string): boolean => {
    const slash = rel.lastIndexOf('/');
    if (slash > 0 && rules.length > 0 && leftOutFolder(rel.slice(0, slash))) return false;
    const decided = lastMatch(rel, false);
    if (decided) return !decided.exclude;
    if (includes) return false;
    return ofType ? ofType(rel) : true;
  };
  return Object.assign(test, { spec, backtracks: rules.some((r) => r.test.backtracks) });
}

function rule(raw: string, hidden: boolean): Rule {
  const exclude = raw.startsWith('!');
  let glob = exclude ? raw.slice(1) : raw;
  const foldersOnly = glob.length > 1 && glob.endsWith('/');
  if (foldersOnly) glob = glob.slice(0, -1);
  const fromRoot = glob.startsWith('/');
  if (fromRoot) glob = glob.slice(1);
  if (glob.trim() === '') {
    throw new ToolError('FILE_GLOB_INVALID', `The glob "${raw}" names nothing.`, { details: { glob: raw }, hint: 'Write e.g. "*.ts", "!*.py" or "src/**".' });
  }
  return { exclude, foldersOnly, test: compileGlob(glob, hidden, { fromRoot })! };
}

/** Whether a path's name is of one of the types; undefined when no type was asked for. INVALID_INPUT names an unknown type. */
function typeTest(types: readonly string[], hidden: boolean): ((rel: string) => boolean) | undefined {
  if (types.length === 0) return undefined;
  const known = Object.keys(FILE_TYPES);
  const globs = types.flatMap((type) => {
    const of = FILE_TYPES[type];
    if (of) return [...of];
    const similar = closestNames(type, known);
    throw new ToolError('INVALID_INPUT', `Unknown file type "${type}".`, {
      details: { type, similar },
      hint: `${similar.length ? `Did you mean ${similar.join(', ')}? ` : ''}Types: ${known.join(', ')}.`,
    });
  });
  const match = picomatch(globs, { dot: hidden });
  return (rel) => match(rel.slice(rel.lastIndexOf('/') + 1));
}
