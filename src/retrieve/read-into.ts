import { closeSync, openSync, readSync } from 'node:fs';

/** Reads a whole file into `buffer` (grown as needed up to `max + 1`); returns its length, or -1 when larger than `max`. */
export function readInto(path: string, holder: { buffer: Buffer }, max: number): number {
  const fd = openSync(path, 'r');
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
