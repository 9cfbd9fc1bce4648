import { closeSync, fstatSync, openSync, renameSync, rmSync, statSync, write as writeAsync } from 'node:fs';
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
  /** Told once when a write fails (the disk is full, the file's folder is gone); later lines are dropped and counted. */
  failed?: (reason: string) => void;
}

export const AUDIT_DEFAULTS = { maxBytes: 10 * 1024 * 1024, keep: 5, maxPending: 10_000, batchMs: 25 };

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
  private failure?: string;
  private readonly options: Required<Omit<AuditLogOptions, 'failed'>> & Pick<AuditLogOptions, 'failed'>;
  private idle: (() => void)[] = [];

  constructor(
    readonly path: string,
    options: AuditLogOptions = {},
  ) {
    this.options = { ...AUDIT_DEFAULTS, ...options };
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

  write(entry: AuditEntry): void {
    if (this.closed) return;
    if (this.ends.length >= this.options.maxPending || this.failure) {
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
    await this.flushed();
    this.closed = true;
    closeSync(this.fd);
  }

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
    writeAsync(this.fd, out, 0, length, null, (error) => {
      // Kept for the next batch unless a very long line (arguments) made it large.
      if (out.length <= KEPT_BUFFER_BYTES) this.spare = out;
      if (error) this.fail(`cannot write the audit log ${this.path}: ${error.message}`);
      else this.size += length;
      if (this.ends.length && !this.failure) return full ? this.flush() : this.flushSoon();
      this.discardWaiting(); // after a failure: counted as dropped, so that flushed() ends
      this.writing = false;
      for (const resolve of this.idle.splice(0)) resolve();
    });
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
    if (this.failure) return;
    this.failure = reason;
    this.options.failed?.(reason);
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
