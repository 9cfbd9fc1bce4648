import { closeSync, constants, existsSync, fstatSync, openSync, readlinkSync, type Stats } from 'node:fs';
import { sep } from 'node:path';
import { ToolError } from '../core/errors.js';
import { isInside } from './paths.js';
import { isOwnPath, type OwnFiles } from '../config/files/own-files.js';

/**
 * Opening what a caller named, safely against races: a path is checked on what was opened, not on
 * its name. A name checked and then opened can be swapped in between (a file, or a folder on the
 * way, exchanged for a symlink to outside the root). So: open first, without following a final
 * symlink and without blocking on a FIFO, then ask the kernel where the descriptor really is
 * (/proc/self/fd on Linux) and refuse it unless it is inside the root, then read from that same
 * descriptor. Only regular files are read; FIFOs, sockets and devices are refused by name.
 */
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const DIR_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_DIRECTORY;

/** Where the kernel says a descriptor is; undefined where the platform cannot tell (no /proc). */
const FD_LINKS = existsSync('/proc/self/fd');
export function descriptorPath(fd: number): string | undefined {
  return FD_LINKS ? readlinkSync(`/proc/self/fd/${fd}`) : undefined;
}

/** A path through which the opened folder itself is read (its entries, race-free), or its own path elsewhere. */
export function throughDescriptor(fd: number, fallback: string): string {
  return FD_LINKS ? `/proc/self/fd/${fd}` : fallback;
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isDirectory()) return 'a folder';
  return 'not a regular file';
}

/**
 * Opens `path` (inside `root`, both real paths) as `want` and verifies the descriptor; the caller
 * reads through it and closes it. `display` names the path in errors. What the descriptor really
 * is must also not be one of mcpkit's own files or folders (`withheld`): however it was named.
 */
export function openInsideRoot(root: string, path: string, want: 'file' | 'dir', display: string, withheld?: OwnFiles): number {
  let fd: number;
  try {
    fd = openSync(path, want === 'file' ? FILE_FLAGS : DIR_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ELOOP: the last part became a symlink since it was resolved. ENOTDIR: a folder became a file or link.
    if (code === 'ELOOP' || code === 'ENOTDIR') throw outside(display, 'it changed into a symlink while being opened');
    if (code === 'ENOENT') {
      throw new ToolError(want === 'file' ? 'FILE_NOT_FOUND' : 'DIR_NOT_FOUND', `${display} went away while being opened.`, { details: { path: display } });
    }
    if (code === 'EACCES' || code === 'EPERM') throw accessDenied(display);
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (want === 'file' && !stats.isFile()) {
      throw new ToolError('FILE_NOT_REGULAR', `${display} is ${kindOf(stats)}, not a regular file.`, {
        details: { path: display },
        hint: 'Only regular files are opened; FIFOs, sockets and devices are not.',
      });
    }
    const real = descriptorPath(fd);
    if (real !== undefined && !isInside(root, real, sep)) throw outside(display, 'a folder on its way changed into a symlink');
    if (withheld && isOwnPath(withheld, real ?? path)) throw ownFile(display);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** FILE_ACCESS for a file or folder this process may not read, named as the caller knows it (never the absolute path). */
export function accessDenied(display: string): ToolError {
  return new ToolError('FILE_ACCESS', `${display} cannot be read: permission denied.`, {
    details: { path: display },
    hint: 'Check its permissions (and those of the folders above it), or run mcpkit as a user who may read it.',
  });
}

/** PATH_HIDDEN for one of mcpkit's own files (its config, pins, audit log, state, cache), which no root serves to agents. */
export function ownFile(display: string): ToolError {
  return new ToolError(
    'PATH_HIDDEN',
    `${display} is one of mcpkit's own files (its config, tool pins, audit log, logins or cache), which no root serves to agents; config_show shows the config, secrets masked.`,
    { details: { path: display, reason: 'mcpkit' }, hint: 'Call config_show for the config.' },
  );
}

function outside(display: string, why: string): ToolError {
  return new ToolError('PATH_OUT_OF_ROOT', `"${display}" leads outside its root: ${why}.`, { details: { path: display } });
}

/**
 * For the walks, which list only regular files (by their directory entries) under a root's real
 * path, so each listed path is canonical: opens one, or returns undefined when it became a
 * symlink since (O_NOFOLLOW) or went away; the walk skips it like a vanished file. O_NONBLOCK
 * keeps a FIFO swapped in meanwhile from blocking the read. Whether a folder on its way was
 * swapped is asked only of files with something to show (read-into.ts confirmPlace).
 */
export function openListedFile(path: string): number | undefined {
  try {
    return openSync(path, FILE_FLAGS);
  } catch {
    return undefined;
  }
}

/**
 * For the walks: a folder opened through its parent's descriptor (`parent` undefined: by its own
 * path, the walk's start), without following a symlink; undefined when it is gone, unreadable or
 * no longer a folder.
 */
export function openFolder(parent: number | undefined, name: string, path: string): number | undefined {
  try {
    return openSync(parent === undefined || !FD_LINKS ? path : `/proc/self/fd/${parent}/${name}`, DIR_FLAGS);
  } catch {
    return undefined;
  }
}
