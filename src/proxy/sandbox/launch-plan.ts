import { dirname, isAbsolute, join, resolve, sep } from 'node:path';

/**
 * How a stdio server's process is started: the command line that runs it in a box (bubblewrap),
 * or in a session of its own that dies with mcpkit, with its resource limits. Pure: what the host
 * has (which helpers, which folders exist) is given by the caller (./host-facts.ts).
 */
export interface SandboxSpec {
  /** The host's network (true), or none at all, loopback included (false, the default). */
  network?: boolean;
  /** Folders and files the server may read, besides the system's and its own. */
  read?: readonly string[];
  /** Folders and files it may write. */
  write?: readonly string[];
}

export interface LimitSpec {
  memory_mb?: number;
  cpu_s?: number;
  open_files?: number;
  /** Most processes the server may run at once (RLIMIT_NPROC, counted per box: a user namespace of its own). */
  processes?: number;
  /** The size of a boxed server's /tmp, in MiB (default DEFAULT_TMP_MB). */
  tmp_mb?: number;
}

/** A boxed server's /tmp unless limits.tmp_mb says otherwise: a tmpfs is memory, and it was unbounded. */
export const DEFAULT_TMP_MB = 64;

/** mcpkit's own files and folders as they are on disk now (config/files/own-files.ts ownPathsOnDisk): never in a box. */
export interface WithheldPaths {
  files: readonly string[];
  folders: readonly string[];
}

export interface LaunchEntry {
  command: string;
  args?: readonly string[];
  cwd?: string;
  sandbox?: boolean | SandboxSpec;
  limits?: LimitSpec;
  /**
   * A folder of mcpkit's that is the box's ~/.npm, writable: npm writes its cache and logs, so
   * `npx -y pkg` runs in a box only with a cache of its own (filled on its first start, which needs
   * `network: true`), never the user's, which a package could otherwise fill for later runs outside.
   */
  npmCache?: string;
  /** mcpkit's own files and folders: never bound into the box, and hidden where a bound folder holds them. */
  withheld?: WithheldPaths;
}

/** What the host offers, found once per process. */
export interface HostFacts {
  platform: NodeJS.Platform;
  home: string;
  /** Absolute paths of the helpers found on the PATH (undefined: not there, or not working). */
  bwrap?: string;
  setsid?: string;
  setpriv?: string;
  prlimit?: string;
  /** Why bubblewrap cannot be used, when it is not found or does not work. */
  bwrapProblem?: string;
  /** Resolves a command as the PATH would (undefined: not found). */
  which(command: string): string | undefined;
  /** Whether a path exists, and whether it is a symlink (what it points to) or a folder. */
  stat(path: string): { kind: 'file' | 'dir' | 'other'; link?: string } | undefined;
  /** The names in a folder (undefined: it cannot be read); a folder bound around mcpkit's own files is bound name by name. */
  list?(path: string): string[] | undefined;
}

/**
 * How what the server started is ended with it: `namespace`, bubblewrap's pid namespace (its
 * processes all end when bubblewrap does, and bubblewrap ends with mcpkit, even killed);
 * `group`, its own process group (ended after the SDK ends the server; when mcpkit is killed the
 * server alone is told, SIGTERM); `process`, the server process alone.
 */
export type LaunchPlan =
  | { ok: true; command: string; args: string[]; boxed: boolean; ends: 'namespace' | 'group' | 'process' }
  | { ok: false; reason: string; hint: string };

/** System folders a boxed program may read; a symlinked one (merged /usr) is made the same link. */
const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
/** What stays hidden inside /etc: files become empty, folders empty. */
const HIDDEN_ETC_FILES = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/ssh/ssh_host_rsa_key',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_ed25519_key',
];
const HIDDEN_ETC_FOLDERS = ['/etc/sudoers.d', '/etc/ssl/private'];
/** What npx and npm read of the home folder: their cache, read-only (so `npx -y pkg` works once it is cached). */
const HOME_CACHES = ['.npm'];

const expand = (path: string, home: string) => (path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path);

/** Whether `path` is `folder` or inside it. Pure. */
function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * What a command line names that must be readable for it to run: the folder of every argument
 * (and of the command) that is an existing file, and for a file inside a node_modules folder,
 * that whole node_modules (a package's imports resolve there). A file inside the home folder or
 * mcpkit's own folders, or beside one of mcpkit's own files (a script beside mcpkit.yaml), is
 * bound alone, never its folder: the folder would show ~/.ssh, the config, its lock and the audit
 * log. Pure, given `stat`.
 */
export function namedPaths(entry: LaunchEntry, facts: Pick<HostFacts, 'stat' | 'which' | 'home'>): { folders: string[]; files: string[] } {
  const folders = new Set<string>();
  const files = new Set<string>();
  const withheld = entry.withheld ?? { files: [], folders: [] };
  const closed = [facts.home, ...withheld.folders];
  const command = isAbsolute(entry.command) ? entry.command : facts.which(entry.command);
  for (const word of [command, ...(entry.args ?? [])]) {
    if (!word || !isAbsolute(resolve(entry.cwd ?? '/', word))) continue;
    const path = resolve(entry.cwd ?? '/', word);
    const found = facts.stat(path);
    if (!found || found.kind !== 'file') continue;
    if (withheld.files.includes(path) || withheld.folders.some((f) => within(path, f))) continue;
    const folder = dirname(path);
    const alone = closed.some((f) => within(folder, f)) || withheld.files.some((f) => dirname(f) === folder);
    (alone ? files : folders).add(alone ? path : folder);
    const at = path.lastIndexOf(`${sep}node_modules${sep}`);
    const modules = at >= 0 ? path.slice(0, at + `${sep}node_modules`.length) : undefined;
    if (modules && !withheld.folders.some((f) => within(modules, f))) folders.add(modules);
  }
  return { folders: [...folders].sort(), files: [...files].sort() };
}

/** The folders of namedPaths (what a box binds whole). Pure. */
export function namedFolders(entry: LaunchEntry, facts: Pick<HostFacts, 'stat' | 'which' | 'home'>): string[] {
  return namedPaths(entry, facts).folders;
}

/** bubblewrap's arguments for a box around `entry` (see SandboxSpec). Pure. */
export function bwrapArgs(entry: LaunchEntry, spec: SandboxSpec, facts: HostFacts): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all', '--cap-drop', 'ALL'];
  if (spec.network === true) args.push('--share-net');
  for (const folder of SYSTEM_FOLDERS) {
    const found = facts.stat(folder);
    if (!found) continue;
    if (found.link !== undefined) args.push('--symlink', found.link, folder);
    else args.push('--ro-bind', folder, folder);
  }
  for (const file of HIDDEN_ETC_FILES) if (facts.stat(file)?.kind === 'file') args.push('--ro-bind', '/dev/null', file);
  for (const folder of HIDDEN_ETC_FOLDERS) if (facts.stat(folder)?.kind === 'dir') args.push('--tmpfs', folder);
  args.push('--proc', '/proc', '--dev', '/dev', '--size', String((entry.limits?.tmp_mb ?? DEFAULT_TMP_MB) * 1024 * 1024), '--tmpfs', '/tmp');
  // The home folder is an empty one, with only an npm cache: the box's own, writable, or else the
  // user's to read (npm itself needs to write, so that serves other readers of it).
  args.push('--tmpfs', facts.home);
  if (entry.npmCache !== undefined) args.push('--bind', entry.npmCache, join(facts.home, '.npm'));
  else {
    for (const cache of HOME_CACHES) {
      const path = join(facts.home, cache);
      if (facts.stat(path)?.kind === 'dir') args.push('--ro-bind', path, path);
    }
  }
  const withheld = entry.withheld ?? { files: [], folders: [] };
  // mcpkit's own files and folders are never bound, whatever read:, write: or cwd say.
  const own = (path: string) => withheld.files.includes(path) || withheld.folders.some((f) => within(path, f));
  const named = namedPaths(entry, facts);
  const readable = [...named.folders, ...named.files, ...(spec.read ?? []).map((p) => resolve(expand(p, facts.home)))];
  if (entry.cwd !== undefined) readable.push(resolve(entry.cwd));
  const writable = (spec.write ?? []).map((p) => resolve(expand(p, facts.home))).filter((p) => !own(p));
  const bound: string[] = [];
  const bind = (flag: '--ro-bind' | '--bind', path: string) => {
    for (const part of bindable(path, withheld, facts)) {
      args.push(flag, part, part);
      bound.push(part);
    }
  };
  for (const path of [...new Set(readable)].sort()) if (!own(path) && !writable.includes(path) && facts.stat(path)) bind('--ro-bind', path);
  for (const path of [...new Set(writable)].sort()) if (facts.stat(path)) bind('--bind', path);
  // An own folder a bound folder holds is hidden behind an empty one (it is made once and never
  // replaced, so a mount over it stays over it).
  for (const folder of withheld.folders)
    if (bound.some((b) => b !== folder && within(folder, b)) && facts.stat(folder)?.kind === 'dir') args.push('--tmpfs', folder);
  if (entry.cwd !== undefined) args.push('--chdir', resolve(entry.cwd));
  return args;
}

/**
 * What binding `path` binds: the path itself, unless it is a folder that holds one of mcpkit's own
 * files (at any depth); then each of its entries but those files, folder by folder down to them.
 * Not a mount over the file: the config and the lock are replaced by a rename on every edit, and a
 * mount stays with the file that was there, while the new one shows. So they are never bound at
 * all; what is made in such a folder after the start is not seen. Pure, given `list`.
 */
function bindable(path: string, withheld: WithheldPaths, facts: Pick<HostFacts, 'stat' | 'list'>): string[] {
  if (withheld.files.includes(path)) return [];
  const holds = withheld.files.some((f) => f !== path && within(f, path));
  if (!holds || facts.stat(path)?.kind !== 'dir') return [path];
  const names = facts.list?.(path);
  if (names === undefined) return []; // cannot tell what it holds: not bound
  return names.flatMap((name) => bindable(join(path, name), withheld, facts));
}

/** prlimit's arguments for the entry's limits, or none. Pure. */
export function limitArgs(limits: LimitSpec | undefined): string[] {
  if (!limits) return [];
  const out: string[] = [];
  // Private writable memory (RLIMIT_DATA), not address space: V8 reserves far more than it uses.
  if (limits.memory_mb !== undefined) out.push(`--data=${limits.memory_mb * 1024 * 1024}`);
  if (limits.cpu_s !== undefined) out.push(`--cpu=${limits.cpu_s}`);
  if (limits.open_files !== undefined) out.push(`--nofile=${limits.open_files}`);
  // Counted per user namespace, so per box; not enforced for root (the kernel exempts it).
  if (limits.processes !== undefined) out.push(`--nproc=${limits.processes}`);
  return out;
}

/**
 * bubblewrap in a session of its own, where setsid is there. A terminal's Ctrl-C is sent to the
 * whole foreground process group: one reaching bubblewrap as it starts ends it before the
 * process inside has set its death signal, and that process stays, with no parent. Out of the
 * group, only mcpkit hears it, and ends its servers itself (stdin, SIGTERM, SIGKILL). setsid
 * replaces itself with bubblewrap, so bubblewrap's parent is still mcpkit (--die-with-parent).
 */
function ownSession(facts: HostFacts, command: string, args: string[]): { command: string; args: string[] } {
  return facts.setsid ? { command: facts.setsid, args: [command, ...args] } : { command, args };
}

/**
 * The command line that starts a stdio server: in a box when its entry asks for one (refused,
 * never run unboxed, where bubblewrap cannot be used); otherwise, where bubblewrap works, in a pid
 * namespace of its own that ends with mcpkit however mcpkit ends; else in a session of its own
 * that is sent SIGTERM when mcpkit dies (setsid, setpriv --pdeathsig), whose process group mcpkit
 * ends when it closes the server. Limits go through prlimit. Pure.
 */
export function launchPlan(entry: LaunchEntry, facts: HostFacts): LaunchPlan {
  const sandbox = entry.sandbox === true ? {} : entry.sandbox === false || entry.sandbox === undefined ? undefined : entry.sandbox;
  const limits = limitArgs(entry.limits);
  if (limits.length && !facts.prlimit) {
    return {
      ok: false,
      reason: 'its entry sets limits, and prlimit (util-linux) is not on the PATH',
      hint: 'Install util-linux, or leave limits out of the entry.',
    };
  }
  const inner = [...(limits.length ? [facts.prlimit!, ...limits, '--'] : []), entry.command, ...(entry.args ?? [])];
  if (sandbox) {
    if (facts.platform !== 'linux' || !facts.bwrap) {
      return {
        ok: false,
        reason:
          facts.platform !== 'linux'
            ? `its entry asks for a sandbox, which mcpkit makes with bubblewrap on Linux only (this is ${facts.platform})`
            : `its entry asks for a sandbox, and bubblewrap cannot be used: ${facts.bwrapProblem ?? 'bwrap is not on the PATH'}`,
        hint:
          facts.platform !== 'linux'
            ? 'Run it without a box on purpose with sandbox: false.'
            : 'Install bubblewrap (Debian and Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap), or run it without a box on purpose with sandbox: false.',
      };
    }
    return { ok: true, ...ownSession(facts, facts.bwrap, [...bwrapArgs(entry, sandbox, facts), '--', ...inner]), boxed: true, ends: 'namespace' };
  }
  if (facts.bwrap) {
    // Not a box: the whole file system and network as they are; only a pid namespace of its own,
    // so that nothing it starts outlives it, or mcpkit.
    const args = ['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--new-session'];
    return { ok: true, ...ownSession(facts, facts.bwrap, [...args, '--', ...inner]), boxed: false, ends: 'namespace' };
  }
  if (facts.platform === 'linux' && facts.setsid && facts.setpriv) {
    return { ok: true, command: facts.setsid, args: [facts.setpriv, '--pdeathsig', 'TERM', '--', ...inner], boxed: false, ends: 'group' };
  }
  return { ok: true, command: inner[0]!, args: inner.slice(1), boxed: false, ends: 'process' };
}
