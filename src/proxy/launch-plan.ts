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
}

/**
 * How what the server started is ended with it: `namespace`, bubblewrap's pid namespace (its
 * processes all end when bubblewrap does, and bubblewrap ends with mcpkit, even killed);
 * `group`, its own process group (ended after the SDK ends the server; when mcpkit is killed the
 * server alone is told, SIGTERM); `process`, the server process alone.
 */
export type LaunchPlan =
  { ok: true; command: string; args: string[]; boxed: boolean; ends: 'namespace' | 'group' | 'process' } | { ok: false; reason: string; hint: string };

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

/**
 * The folders a command line names that must be readable for it to run: the folder of every
 * argument (and of the command) that is an existing file, and for a file inside a node_modules
 * folder, that whole node_modules (a package's imports resolve there). Pure, given `stat`.
 */
export function namedFolders(entry: LaunchEntry, facts: Pick<HostFacts, 'stat' | 'which'>): string[] {
  const folders = new Set<string>();
  const command = isAbsolute(entry.command) ? entry.command : facts.which(entry.command);
  for (const word of [command, ...(entry.args ?? [])]) {
    if (!word || !isAbsolute(resolve(entry.cwd ?? '/', word))) continue;
    const path = resolve(entry.cwd ?? '/', word);
    const found = facts.stat(path);
    if (!found || found.kind !== 'file') continue;
    folders.add(dirname(path));
    const at = path.lastIndexOf(`${sep}node_modules${sep}`);
    if (at >= 0) folders.add(path.slice(0, at + `${sep}node_modules`.length));
  }
  return [...folders].sort();
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
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
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
  const readable = [...namedFolders(entry, facts), ...(spec.read ?? []).map((p) => resolve(expand(p, facts.home)))];
  if (entry.cwd !== undefined) readable.push(resolve(entry.cwd));
  const writable = (spec.write ?? []).map((p) => resolve(expand(p, facts.home)));
  for (const path of [...new Set(readable)].sort()) if (!writable.includes(path) && facts.stat(path)) args.push('--ro-bind', path, path);
  for (const path of [...new Set(writable)].sort()) if (facts.stat(path)) args.push('--bind', path, path);
  if (entry.cwd !== undefined) args.push('--chdir', resolve(entry.cwd));
  return args;
}

/** prlimit's arguments for the entry's limits, or none. Pure. */
export function limitArgs(limits: LimitSpec | undefined): string[] {
  if (!limits) return [];
  const out: string[] = [];
  // Private writable memory (RLIMIT_DATA), not address space: V8 reserves far more than it uses.
  if (limits.memory_mb !== undefined) out.push(`--data=${limits.memory_mb * 1024 * 1024}`);
  if (limits.cpu_s !== undefined) out.push(`--cpu=${limits.cpu_s}`);
  if (limits.open_files !== undefined) out.push(`--nofile=${limits.open_files}`);
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
