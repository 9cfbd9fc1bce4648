import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { ToolError } from '../../core/errors.js';
import { daemonFolder } from '../../config/files/own-files.js';

/**
 * Where a config's daemon listens: a Unix socket (never TCP) in a folder only its user can enter,
 * `$XDG_RUNTIME_DIR/mcpkit/` or else `$TMPDIR/mcpkit-UID/`, named after the config file's path
 * (as found, symlinks not followed), so one config has one daemon and `cd` does not change which
 * one answers.
 */
export interface DaemonPlace {
  folder: string;
  /** The socket: short enough for sun_path (108 bytes) under any sane runtime folder. */
  socket: string;
  /** The daemon's record of itself (pid, build, config, start), for `daemon status` and `stop`. */
  info: string;
  config: string;
}

export { daemonFolder };

export function daemonPlace(configPath: string, env: NodeJS.ProcessEnv): DaemonPlace {
  // The path as found, not its target: a config's relative paths (retrieve.roots, hooks) are
  // relative to where it was found, so a symlink to another project's config is another project.
  const config = resolve(configPath);
  const folder = daemonFolder(env);
  const key = createHash('sha256').update(config).digest('hex').slice(0, 16);
  return { folder, socket: join(folder, `${key}.sock`), info: join(folder, `${key}.json`), config };
}

/**
 * Makes the folder (0700) if it is missing, and refuses one that another user owns or others may
 * enter: a socket there could be someone else's process answering our commands.
 */
export function ensurePrivateFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  checkPrivateFolder(folder);
}

export function checkPrivateFolder(folder: string): void {
  const stats = lstatSync(folder);
  const problem = !stats.isDirectory()
    ? 'is not a folder'
    : stats.uid !== uid()
      ? `belongs to user ${stats.uid}, not to you (${uid()})`
      : (stats.mode & 0o077) !== 0
        ? `may be entered by other users (mode ${(stats.mode & 0o777).toString(8)})`
        : undefined;
  if (problem) {
    throw new ToolError('FILE_ACCESS', `The daemon's folder ${folder} ${problem}.`, {
      details: { folder },
      hint: `Remove it, or set XDG_RUNTIME_DIR to a folder of your own (mode 0700); mcpkit makes it again.`,
    });
  }
}

function uid(): number {
  return process.getuid?.() ?? userInfo().uid;
}
