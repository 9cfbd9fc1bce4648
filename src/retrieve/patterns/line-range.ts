import { readSync } from 'node:fs';

export interface LineRange {
  /** The lines kept, from `start`, without their line ends. */
  lines: string[];
  /** Every line of the file: a last line without a newline counts, an empty end does not. */
  totalLines: number;
  /** Lines of the range were left out to stay within `maxBytes`. */
  truncated: boolean;
  /** A NUL in the first 8 KiB: not text (nothing is kept). */
  binary: boolean;
}

const NEWLINE = 10;
const CR = 13;

/**
 * Lines start..end (1-based, inclusive) of an open file, read in blocks, keeping at most
 * `maxBytes` of their text (whole lines only), and counting every line to the end of the file, so
 * that a line range works on a file of any size and `totalLines` is always true. The descriptor
 * is left open.
 */
export function readLineRange(fd: number, start: number, end: number, maxBytes: number, blockSize = 1 << 20): LineRange {
  const block = Buffer.allocUnsafe(blockSize);
  const lines: string[] = [];
  let line = 1;
  let kept = 0;
  let truncated = false;
  /** Bytes of the current line seen so far (only while it is one to keep). */
  let parts: Buffer[] = [];
  let partLength = 0;
  let lineHasBytes = false;
  let first = true;
  const keeping = () => line >= start && line <= end && !truncated;
  const finish = () => {
    if (keeping()) {
      let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, partLength);
      if (bytes.length > 0 && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
      if (kept + bytes.length + 1 > maxBytes) truncated = true;
      else {
        kept += bytes.length + 1;
        lines.push(bytes.toString('utf8'));
      }
    }
    parts = [];
    partLength = 0;
    lineHasBytes = false;
    line++;
  };
  for (;;) {
    const n = readSync(fd, block, 0, blockSize, null);
    if (n === 0) break;
    const data = block.subarray(0, n);
    if (first) {
      first = false;
      if (data.subarray(0, 8192).includes(0)) return { lines: [], totalLines: 0, truncated: false, binary: true };
    }
    let at = 0;
    while (at < n) {
      const nl = data.indexOf(NEWLINE, at);
      const stop = nl === -1 ? n : nl;
      if (stop > at) {
        lineHasBytes = true;
        // A copy: the block is reused by the next read.
        if (keeping()) {
          parts.push(Buffer.from(data.subarray(at, stop)));
          partLength += stop - at;
        }
      }
      if (nl === -1) break;
      finish();
      at = nl + 1;
    }
  }
  if (lineHasBytes) finish();
  return { lines, totalLines: line - 1, truncated, binary: false };
}
