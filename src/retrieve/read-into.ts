import { closeSync, readSync } from 'node:fs';
import { descriptorPath, openListedFile } from './safe-open.js';

/**
 * What a walk reads files into: one buffer, reused, and the descriptor of the file last read,
 * kept open so that a file whose content is about to be shown can be checked on that very
 * descriptor (confirmPlace) rather than on its name.
 */
export interface ReadHolder {
  buffer: Buffer;
  fd?: number;
  path?: string;
}

/**
 * Reads a whole file into `buffer` (grown as needed up to `max + 1`); returns its length, or -1
 * when larger than `max`. Throws when the path is no longer a regular file (a symlink put in its
 * place since the walk listed it), which the walks skip like a vanished file.
 */
export function readInto(path: string, holder: ReadHolder, max: number): number {
  releaseRead(holder);
  const fd = openListedFile(path);
  if (fd === undefined) throw new Error(`${path} is no longer a regular file`);
  holder.fd = fd;
  holder.path = path;
  let len = 0;
  for (;;) {
    if (len === holder.buffer.length) {
      if (holder.buffer.length > max) return -1;
      const bigger = Buffer.allocUnsafe(Math.min(holder.buffer.length * 2, max + 1));
      holder.buffer.copy(bigger, 0, 0, len);
      holder.buffer = bigger;
    }
    const n = readSync(fd, holder.buffer, len, holder.buffer.length - len, null);
    if (n === 0) break;
    len += n;
    if (len > max) return -1;
  }
  return len;
}

/**
 * Whether the file last read is where the walk listed it: false when a folder on its way was
 * swapped for a symlink (to outside the root) since. Asked only of files whose content is about
 * to be shown, so the check costs one readlink per file with a match, not per file read.
 */
export function confirmPlace(holder: ReadHolder): boolean {
  if (holder.fd === undefined) return false;
  try {
    const real = descriptorPath(holder.fd);
    return real === undefined || real === holder.path;
  } catch {
    return false;
  }
}

export function releaseRead(holder: ReadHolder): void {
  if (holder.fd === undefined) return;
  closeSync(holder.fd);
  holder.fd = undefined;
  holder.path = undefined;
}
