import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Document, visit, type YAMLMap, type YAMLSeq } from 'yaml';
import { ToolError } from '../core/errors.js';
import { atomicWrite, removeOrphanTemps, type AtomicWriteOptions } from './files/atomic-write.js';
import { addSecrets } from '../core/redact.js';
import { documentData, parseYaml } from './check/yaml-data.js';
import { acquireLock, type LockOptions } from './files/lock.js';
import { linkTarget } from './files/link-target.js';
import { secretValues } from './secrets/mask.js';
import { configInvalid, type ConfigProblem } from './check/problems.js';
import { checkValues, problemsOfEdit } from './check/value-check.js';

/** `[a, b]` as people write it, not yaml's default `[ a, b ]`. */
const YAML_STYLE = { flowCollectionPadding: false } as const;

export interface EditOptions extends AtomicWriteOptions {
  lock?: LockOptions;
  /**
   * Create the config's folder when it is missing: only for the location mcpkit chose itself (the
   * user config directory). A folder in a path the user named is never created: a typo in
   * `--config` would otherwise start a second config in silence.
   */
  createFolder?: boolean;
  /**
   * Called with the edited document once it is known to be valid, just before it is written, with
   * the config's lock held: a throw writes nothing. What must change with the config, and never
   * after it, goes here (the pins of a server the edit replaced: tools/shared/config-access.ts).
   */
  beforeWrite?: (doc: Document) => void | Promise<void>;
  /**
   * The environment the config's `${VAR}` are checked with, as `config validate` checks them
   * (config/check/value-check.ts problemsOfEdit); none given: every variable is unset.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface EditOutcome<R> {
  value: R;
  /** False when the mutation left the document as it was (nothing is written then). */
  changed: boolean;
  path: string;
}

function readExisting(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ToolError('CONFIG_INVALID', `Cannot read config ${path}: ${(error as Error).message}`, {
      hint: 'Check the file permissions, or point --config / MCPKIT_CONFIG at another file.',
    });
  }
}

/**
 * The one way mcpkit changes a config file: lock, read the YAML document, mutate it in place
 * (comments and key order survive), validate the whole result, then write atomically. A refused
 * mutation, or one that would leave the config invalid, leaves the file byte-for-byte unchanged.
 * The result is checked as `config validate` checks it, on the values the variables give; the text
 * is written as it was (`${VAR}` intact), and an unset variable blocks an edit only where the field
 * needs its value (problemsOfEdit).
 */
export async function editConfig<R>(path: string, mutate: (doc: Document) => R, options: EditOptions = {}): Promise<EditOutcome<R>> {
  try {
    // A symlinked config is edited where it really is, and the link stays a link.
    return { ...(await editFile(linkTarget(path), mutate, options)), path };
  } catch (error) {
    throw fileAccess(error, path);
  }
}

/** Permissions and read-only file systems are the user's to fix: say so, with the path, never "a bug". */
function fileAccess(error: unknown, path: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') return error;
  return new ToolError('FILE_ACCESS', `Cannot write the config ${path}: ${(error as Error).message}.`, {
    details: { file: path, errno: code },
    hint:
      code === 'EROFS'
        ? 'The file system is read-only: point --config or MCPKIT_CONFIG at a writable file.'
        : 'Check the permissions of the file and its folder.',
  });
}

/** The config's folder exists, or is made when that is allowed (EditOptions.createFolder). */
function ensureFolder(path: string, options: EditOptions): void {
  const folder = dirname(path);
  if (existsSync(folder)) return;
  if (options.createFolder) {
    mkdirSync(folder, { recursive: true });
    return;
  }
  throw new ToolError('NOT_FOUND', `The folder of the config ${path} does not exist: ${folder}. mcpkit creates a config file, never its folders.`, {
    details: { file: path, folder },
    hint: `Check the path given to --config or MCPKIT_CONFIG; if it is right, create the folder first: mkdir -p ${folder}`,
  });
}

async function editFile<R>(path: string, mutate: (doc: Document) => R, options: EditOptions): Promise<EditOutcome<R>> {
  ensureFolder(path, options);
  const lock = await acquireLock(`${path}.lock`, options.lock);
  try {
    removeOrphanTemps(path);
    const before = readExisting(path);
    let doc: Document;
    if (before === undefined) {
      doc = new Document({});
    } else {
      const parsed = parseYaml(before);
      if (parsed.problems.length) throw configInvalid(path, parsed.problems, 'cannot be edited: it is not valid YAML');
      doc = parsed.doc;
    }
    const baseline = before === undefined ? undefined : doc.toString(YAML_STYLE);
    const emptyFlows = emptyFlowCollections(doc);
    const value = mutate(doc);
    // `mcp_servers: {}` that an edit fills becomes a block mapping: new entries are written one
    // per line under their key, like the rest of the file, not as `{ everything: { ... } }`.
    for (const node of emptyFlows) if (node.items.length > 0) node.flow = false;
    const problems = editProblems(doc, options.env ?? {});
    if (problems.length) {
      throw configInvalid(
        path,
        problems,
        'was not changed: the edit would make it invalid',
        'Nothing was written; correct the values named above and run the command again.',
      );
    }
    const after = doc.toString(YAML_STYLE);
    if (after === baseline) return { value, changed: false, path };
    await options.beforeWrite?.(doc);
    if (!lock.held()) {
      throw new ToolError('CONFLICT', `Lost the lock on ${path} while editing; the file was not changed.`, { hint: 'Run the command again.' });
    }
    atomicWrite(path, after, options);
    return { value, changed: true, path };
  } finally {
    lock.release();
  }
}

/** What would make the edited document invalid; the values its variables give are never shown (core/redact). */
function editProblems(doc: Document, env: Readonly<Record<string, string | undefined>>): ConfigProblem[] {
  const { data, problems: shape } = documentData(doc);
  if (shape.length) return shape;
  const check = checkValues(data, env);
  addSecrets(secretValues(check.expanded.value, check.expanded.envValues));
  return problemsOfEdit(check);
}

/** Writes a whole new file under the same lock (used by `config init`). */
export async function replaceConfigText(path: string, text: string, options: EditOptions & { overwrite: boolean }): Promise<{ replaced: boolean }> {
  ensureFolder(path, options);
  const lock = await acquireLock(`${path}.lock`, options.lock);
  try {
    const before = readExisting(path);
    if (before !== undefined && !options.overwrite) {
      throw new ToolError('CONFLICT', `Config ${path} already exists; not overwritten.`, {
        details: { file: path },
        hint: 'Pass --force to replace it, or edit it with the config commands.',
      });
    }
    atomicWrite(path, text, options);
    return { replaced: before !== undefined };
  } finally {
    lock.release();
  }
}

/** The empty flow collections (`{}`, `[]`) of a document. */
function emptyFlowCollections(doc: Document): (YAMLMap | YAMLSeq)[] {
  const found: (YAMLMap | YAMLSeq)[] = [];
  visit(doc, {
    Map: (_key, node) => void (node.flow && node.items.length === 0 && found.push(node)),
    Seq: (_key, node) => void (node.flow && node.items.length === 0 && found.push(node)),
  });
  return found;
}
