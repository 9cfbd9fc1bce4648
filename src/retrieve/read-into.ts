import { closeSync, readSync } from 'node:fs';
import { openListedFile } from './safe-open.js';

/**
 * Reads a whole file into `buffer` (grown as needed up to `max + 1`); returns its length, or -1
 * when larger than `max`. Throws when the path is no longer a regular file (a symlink or a FIFO
 * put in its place since the walk listed it), which the walks skip like a vanished file.
 */
export function readInto(path: string, holder: { buffer: Buffer }, max: number): number {
  const fd = openListedFile(path);
  if (fd === undefined) throw new Error(`${path} is no longer a regular file`);
  try {
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
  } finally {
    closeSync(fd);
  }
}
