import { printable } from '../../core/printable.js';

/** A progress notification as a server sends it. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * One line of a call's progress for a terminal, as npm or docker pull show theirs: a bar and
 * percentage when the server gives a total, else the count, then its message, cut to `width`.
 * The message is the server's: control characters are made visible (core/printable). Pure.
 */
export function progressLine(update: ProgressUpdate, width: number): string {
  const { progress, total, message } = update;
  let head: string;
  if (total !== undefined && total > 0) {
    const share = Math.min(1, Math.max(0, progress / total));
    const cells = 20;
    const full = Math.round(share * cells);
    head = `[${'#'.repeat(full)}${'-'.repeat(cells - full)}] ${String(Math.round(share * 100)).padStart(3)}%`;
  } else {
    head = `[${progress}]`;
  }
  const line = message ? `${head} ${printable(message.replace(/\s+/g, ' ').trim())}` : head;
  return line.length > width ? `${line.slice(0, Math.max(0, width - 1))}…` : line;
}

/**
 * Draws a call's progress on a terminal's stderr, one line rewritten in place; `done` clears it.
 * Nothing is drawn where stderr is not a terminal (a script reads only the result).
 */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): { update(u: ProgressUpdate): void; done(): void } | undefined {
  if (!stream.isTTY) return undefined;
  let drawn = false;
  return {
    update(u) {
      stream.write(`\r\x1b[2K${progressLine(u, Math.max(20, (stream.columns || 80) - 1))}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}
