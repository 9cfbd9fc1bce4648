import { readdirSync, realpathSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { cacheDir, stateDir } from '../schema/defaults.js';
import { pinFilePath } from './pin-path.js';

/**
 * mcpkit's own files: what no agent reads through a root, whatever the root allows. Its config and
 * the lock file of its pins (each with its edit lock, its rotations and the temp files an atomic
 * write leaves beside it), the audit log, and its folders: the user config folder, its state
 * (OAuth logins, backups, the default audit log), its cache (bundles, tool listings, boxes' npm
 * caches) and the daemon's folder (sockets). Every path is a real path, as roots are.
 */
export interface OwnFiles {
  /** Each own file's folder, with the names of own files in it. */
  readonly byFolder: ReadonlyMap<string, readonly string[]>;
  /** Folders that are mcpkit's as a whole. */
  readonly folders: ReadonlySet<string>;
  /** A key that changes when the set does (caches of walks are kept apart by it). */
  readonly key: string;
}

export interface OwnFilesInput {
  configPath: string;
  /** serve's audit log, when it writes one (--audit-log or serve.audit_log, resolved). */
  auditLog?: string;
  env: Readonly<Record<string, string | undefined>>;
  home?: string;
}

/** The real path of `path`; for one that does not exist, its folder's real path and its name. */
export function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const folder = dirname(path);
    if (folder === path) return path;
    return join(realPath(folder), basename(path));
  }
}

/** The daemon's folder: `$XDG_RUNTIME_DIR/mcpkit`, else `$TMPDIR/mcpkit-UID` (daemon/client/place.ts places its sockets there). */
export function daemonFolder(env: Readonly<Record<string, string | undefined>>): string {
  const runtimeDir = env.XDG_RUNTIME_DIR?.trim();
  return runtimeDir ? join(runtimeDir, 'mcpkit') : join(tmpdir(), `mcpkit-${uid()}`);
}

function uid(): number {
  return process.getuid?.() ?? userInfo().uid;
}

/** The user config folder, `$XDG_CONFIG_HOME/mcpkit` (config/locate.ts puts config.yaml there). */
function userConfigFolder(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return join(env.XDG_CONFIG_HOME?.trim() || join(home, '.config'), 'mcpkit');
}

export function ownFiles(input: OwnFilesInput): OwnFiles {
  const home = input.home ?? input.env.HOME ?? homedir();
  const files = [input.configPath, pinFilePath(input.configPath), ...(input.auditLog ? [input.auditLog] : [])].map((f) => realPath(resolve(f)));
  const byFolder = new Map<string, string[]>();
  for (const file of files) byFolder.set(dirname(file), [...(byFolder.get(dirname(file)) ?? []), basename(file)]);
  // The daemon's folder as this process finds it, and as a process given this environment's TMPDIR would.
  const daemonFolders = [daemonFolder(input.env), ...(input.env.TMPDIR?.trim() ? [join(input.env.TMPDIR.trim(), `mcpkit-${uid()}`)] : [])];
  const folders = new Set(
    [userConfigFolder(input.env, home), stateDir(input.env as NodeJS.ProcessEnv, home), cacheDir(input.env, home), ...daemonFolders].map((f) =>
      realPath(resolve(f)),
    ),
  );
  return { byFolder, folders, key: [...files, ...folders].join('\0') };
}

/**
 * Whether `name` in `folder` is one of mcpkit's own files, given the own file names of that
 * folder: the file itself, its edit lock (`NAME.lock`) and that lock's guard (`NAME.lock.break`,
 * held while a stale lock is broken: ./lock.ts), a rotation (`NAME.3`), or a temp file of an atomic
 * write or of the lock (`.NAME.PID.HEX.tmp`, `.NAME.lock.PID.HEX.tmp`). Pure.
 */
export function ownName(name: string, own: readonly string[]): boolean {
  for (const file of own) {
    if (name === file || name === `${file}.lock` || name === `${file}.lock.break`) return true;
    if (name.startsWith(`${file}.`) && /^\d+$/.test(name.slice(file.length + 1))) return true;
    if (name.startsWith(`.${file}.`) && name.endsWith('.tmp')) return true;
  }
  return false;
}

/** Whether a real path is mcpkit's own: an own file, or inside (or equal to) an own folder. Pure. */
export function isOwnPath(own: OwnFiles, path: string): boolean {
  const names = own.byFolder.get(dirname(path));
  if (names && ownName(basename(path), names)) return true;
  for (const folder of own.folders) if (path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep)) return true;
  return false;
}

/**
 * The own files that exist now (each own file, its lock, rotations and temp files, found by a look
 * at its folder) and the own folders, as concrete paths: what a box must never show.
 */
export function ownPathsOnDisk(own: OwnFiles): { files: string[]; folders: string[] } {
  const files: string[] = [];
  for (const [folder, names] of own.byFolder) {
    let entries: string[];
    try {
      entries = readdirSync(folder);
    } catch {
      entries = [];
    }
    for (const name of entries) if (ownName(name, names)) files.push(join(folder, name));
  }
  return { files: files.sort(), folders: [...own.folders].sort() };
}
