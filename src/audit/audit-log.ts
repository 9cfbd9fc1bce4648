import { closeSync, fstatSync, ftruncate, openSync, renameSync, rmSync, statSync, write as writeAsync } from 'node:fs';
import { auditLine, type AuditEntry } from './audit-line.js';

export type { AuditEntry } from './audit-line.js';

export interface AuditLogOptions {
  /** Rotate when the file would grow past this (default 10 MiB). */
  maxBytes?: number;
  /** Rotated files kept: PATH.1 (newest) to PATH.N (default 5). */
  keep?: number;
  /** Lines waiting to be written beyond which new ones are dropped (and counted): writing never holds up a call. */
  maxPending?: number;
  /**
   * How long a line may wait for others before its batch is written (default 25 ms). One write
   * per call costs a thread-pool round trip and an event-loop turn each: at a thousand calls a
   * second that was a fifth of serve's CPU per call; batched, it is a few writes a second.
   */
  batchMs?: number;
  /**
   * Told once when writing starts failing (the disk is full, the file's folder is gone): lines wait
   * (up to maxPending, later ones are dropped and counted) and the write is tried again with backoff.
   */
  failed?: (reason: string) => void;
  /** Told when a write works again after failing, with the lines dropped meanwhile. */
  recovered?: (dropped: number) => void;
  /** The file system calls it writes with (a test gives one that fails like a full disk). */
  fs?: AuditFs;
}

/** The calls the log writes its file with. */
export interface AuditFs {
  write(fd: number, buffer: Buffer, offset: number, length: number, done: (error: NodeJS.ErrnoException | null, written: number) => void): void;
  ftruncate(fd: number, length: number, done: (error: NodeJS.ErrnoException | null) => void): void;
}

const nodeFs: AuditFs = {
  write: (fd, buffer, offset, length, done) => writeAsync(fd, buffer, offset, length, null, done),
  ftruncate: (fd, length, done) => ftruncate(fd, length, done),
};

/** How the log stands: writing, or failing since when and why, and what it dropped. */
export interface AuditStatus {
  ok: boolean;
  path: string;
  dropped_lines: number;
  failing_since?: string;
  reason?: string;
}

export const AUDIT_DEFAULTS = { maxBytes: 10 * 1024 * 1024, keep: 5, maxPending: 10_000, batchMs: 25 };
/** The first retry after a failed write, doubled each time up to the last. */
export const RETRY_FIRST_MS = 100;
export const RETRY_MAX_MS = 30_000;

/** The first room for waiting lines; it grows (doubling) when a batch needs more. */
const FIRST_BUFFER_BYTES = 64 * 1024;
/** A buffer grown past this is let go after its write rather than kept for the next batch. */
const KEPT_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * An append-only JSON Lines file (0600), written in the background one batch at a time (lines
 * gathered for up to batchMs, and all of them on close), so a call never waits on the disk; rotated
 * by size (PATH -> PATH.1 -> ... -> PATH.N). Each line is encoded once, into the batch's buffer,
 * where the batch is later written from: kept as strings, they were measured each once more for
 * their size and copied twice more (joined, then encoded) per write. Written here rather than with
 * a rotating-stream library: the policy that matters (drop and count rather than buffer without
 * end, a fixed mode on every new file, rotation between batches so a line is never split) is a few
 * lines over fs, and a library would be one more dependency of serve.
 */
export class AuditLog {
  private fd: number;
  private size: number;
  /** The waiting lines, encoded back to back, and where each one ends. */
  private buffer: Buffer = Buffer.allocUnsafe(FIRST_BUFFER_BYTES);
  private used = 0;
  private ends: number[] = [];
  /** The buffer of the last write, filled again once that write is done. */
  private spare: Buffer | undefined;
  private writing = false;
  private timer: NodeJS.Timeout | undefined;
  private batches = 0;
  private closed = false;
  private dropped = 0;
  /** While writes fail: since when, why, and the wait before the next try. */
  private failing?: { since: Date; reason: string; retryMs: number; droppedBefore: number };
  private readonly options: Required<Omit<AuditLogOptions, 'failed' | 'recovered'>> & Pick<AuditLogOptions, 'failed' | 'recovered'>;
  private idle: (() => void)[] = [];

  constructor(
    readonly path: string,
    options: AuditLogOptions = {},
  ) {
    this.options = { ...AUDIT_DEFAULTS, fs: nodeFs, ...options };
    this.fd = openSync(path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  /** Lines dropped because the writer fell behind or failed. */
  get droppedLines(): number {
    return this.dropped;
  }

  /** Writes made so far (each one a batch of lines). */
  get batchesWritten(): number {
    return this.batches;
  }

  /** Writing, or failing since when and why; what was dropped. */
  status(): AuditStatus {
    return {
      ok: this.failing === undefined,
      path: this.path,
      dropped_lines: this.dropped,
      ...(this.failing ? { failing_since: this.failing.since.toISOString(), reason: this.failing.reason } : {}),
    };
  }

  write(entry: AuditEntry): void {
    if (this.closed) return;
    if (this.ends.length >= this.options.maxPending) {
      this.dropped++;
      return;
    }
    const line = auditLine(entry);
    // A UTF-16 unit is at most three bytes of UTF-8; the newline is one more.
    if (this.used + line.length * 3 + 1 > this.buffer.length) this.buffer = grown(this.buffer, this.used, line.length * 3 + 1);
    this.used += this.buffer.write(line, this.used, 'utf8');
    this.buffer[this.used++] = 0x0a;
    this.ends.push(this.used);
    if (!this.writing) this.flushSoon();
  }

  /** Resolves once every line written so far is on disk (tests, and close): a waiting batch goes now. */
  flushed(): Promise<void> {
    if (!this.writing && this.ends.length === 0) return Promise.resolve();
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.flush();
    }
    return new Promise((resolve) => this.idle.push(resolve));
  }

  async close(): Promise<void> {
    // Closing twice (serve's close called again) closes once.
    if (this.closed) return;
    // Failing: one more try now, and what still cannot be written is dropped (counted), not waited for.
    if (this.failing) this.giveUpWaiting = true;
    await this.flushed();
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  private giveUpWaiting = false;

  private flushSoon(): void {
    this.writing = true;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.options.batchMs);
  }

  /** Writes the waiting lines that fit in the current file; the rest go right after, into the next. */
  private flush(): void {
    this.batches++;
    const { maxBytes } = this.options;
    if (this.size > 0 && this.ends[0]! > maxBytes - this.size) this.rotate();
    const room = maxBytes - this.size;
    let take = 1; // a line longer than a whole file still goes, alone
    while (take < this.ends.length && this.ends[take]! <= room) take++;
    const full = take < this.ends.length;
    const out = this.buffer;
    const length = this.ends[take - 1]!;
    // New lines go to the other buffer while this one is written; the lines left over (they did
    // not fit in this file) lead it.
    this.buffer = this.spare && this.spare.length >= this.used - length ? this.spare : Buffer.allocUnsafe(Math.max(FIRST_BUFFER_BYTES, this.used - length));
    this.spare = undefined;
    this.used = out.copy(this.buffer, 0, length, this.used);
    this.ends = this.ends.slice(take).map((end) => end - length);
    const taken = take;
    this.writeWhole(out, length, (error) => {
      if (error) {
        // The lines go back in front of the waiting ones, to be written once the disk takes them.
        this.requeue(out, length, taken);
        this.fail(`cannot write the audit log ${this.path}: ${error.message}`);
        if (this.giveUpWaiting) {
          this.discardWaiting();
          return this.settle();
        }
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.flush();
        }, this.failing!.retryMs);
        this.failing!.retryMs = Math.min(this.failing!.retryMs * 2, RETRY_MAX_MS);
        return;
      }
      // Kept for the next batch unless a very long line (arguments) made it large.
      if (out.length <= KEPT_BUFFER_BYTES) this.spare = out;
      this.size += length;
      this.recover();
      if (this.ends.length) return full ? this.flush() : this.flushSoon();
      this.settle();
    });
  }

  /**
   * Writes all `length` bytes of `buffer`, in as many writes as the system takes. A write that
   * fails part way leaves no torn line: the file is cut back to where this batch began.
   */
  private writeWhole(buffer: Buffer, length: number, done: (error?: NodeJS.ErrnoException) => void): void {
    const { fs } = this.options;
    const start = this.size;
    let offset = 0;
    const step = () =>
      fs.write(this.fd, buffer, offset, length - offset, (error, written) => {
        if (!error) {
          offset += written;
          if (offset < length) return step();
          return done();
        }
        if (offset === 0 && this.sizeOnDisk() === start) return done(error);
        fs.ftruncate(this.fd, start, () => done(error));
      });
    step();
  }

  private sizeOnDisk(): number | undefined {
    try {
      return fstatSync(this.fd).size;
    } catch {
      return undefined;
    }
  }

  /** Puts the first `count` lines of a batch that failed back in front of the lines waiting now. */
  private requeue(batch: Buffer, length: number, count: number): void {
    const waiting = this.buffer.subarray(0, this.used);
    const merged = Buffer.allocUnsafe(Math.max(FIRST_BUFFER_BYTES, length + this.used));
    batch.copy(merged, 0, 0, length);
    waiting.copy(merged, length);
    const batchEnds: number[] = [];
    // The batch's line ends are where its newlines are.
    for (let i = 0; i < length; i++) if (batch[i] === 0x0a) batchEnds.push(i + 1);
    this.ends = [...batchEnds.slice(0, count), ...this.ends.map((end) => end + length)];
    this.buffer = merged;
    this.used = length + this.used;
    // Over the cap, the newest lines are the ones dropped, as write() drops a line past it.
    const over = this.ends.length - this.options.maxPending;
    if (over > 0) {
      this.ends = this.ends.slice(0, this.options.maxPending);
      this.used = this.ends[this.ends.length - 1] ?? 0;
      this.dropped += over;
    }
  }

  private settle(): void {
    this.writing = false;
    for (const resolve of this.idle.splice(0)) resolve();
  }

  /** PATH.N is dropped, each PATH.i becomes PATH.i+1, PATH becomes PATH.1, and a new PATH is opened (0600). */
  private rotate(): void {
    try {
      closeSync(this.fd);
      const { keep } = this.options;
      rmSync(`${this.path}.${keep}`, { force: true });
      for (let i = keep - 1; i >= 1; i--) {
        if (exists(`${this.path}.${i}`)) renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
      }
      if (keep >= 1) renameSync(this.path, `${this.path}.1`);
      else rmSync(this.path, { force: true });
      this.fd = openSync(this.path, 'a', 0o600);
      this.size = 0;
    } catch (error) {
      this.fail(`cannot rotate the audit log ${this.path}: ${(error as Error).message}`);
      this.fd = openSync(this.path, 'a', 0o600);
      this.size = fstatSync(this.fd).size;
    }
  }

  private discardWaiting(): void {
    this.dropped += this.ends.length;
    this.ends = [];
    this.used = 0;
  }

  private fail(reason: string): void {
    if (this.failing) return;
    this.failing = { since: new Date(), reason, retryMs: RETRY_FIRST_MS, droppedBefore: this.dropped };
    this.options.failed?.(reason);
  }

  private recover(): void {
    if (!this.failing) return;
    const dropped = this.dropped - this.failing.droppedBefore;
    this.failing = undefined;
    this.options.recovered?.(dropped);
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A buffer with room for `more` bytes past its first `used`, which it keeps. */
function grown(buffer: Buffer, used: number, more: number): Buffer {
  const next = Buffer.allocUnsafe(Math.max(buffer.length * 2, used + more));
  buffer.copy(next, 0, 0, used);
  return next;
}
