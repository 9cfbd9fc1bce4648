import { closeSync, fstatSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { write as writeAsync } from 'node:fs';

/** One line of the audit log: what an agent asked of `serve`, and how it ended. */
export interface AuditEntry {
  time: string;
  /** tools/call, prompts/get or resources/read. */
  method: string;
  /** The MCP session (a 2025 connection), else null (a 2026 request stands alone). */
  session: string | null;
  /** The JSON-RPC id of the request. */
  request: string | number | null;
  client: { name: string; version: string } | null;
  /** The view's name; null for the default one. */
  view: string | null;
  /** The tool, prompt or resource as published to the client. */
  name: string;
  /** The upstream server, or "mcpkit" for its own tools; null when nothing matched the name. */
  server: string | null;
  /** The server's own name for it. */
  upstream_name: string | null;
  duration_ms: number;
  outcome: 'ok' | 'tool_error' | 'protocol_error';
  /** The error code: mcpkit's (a tool error) or JSON-RPC's (a protocol error). */
  error_code: string | number | null;
  bytes_in: number;
  bytes_out: number;
  /** Only with serve.audit_arguments: true, secrets masked. */
  arguments?: unknown;
}

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

/**
 * An append-only JSON Lines file (0600), written in the background one batch at a time (lines
 * gathered for up to batchMs, and all of them on close), so a call never waits on the disk; rotated by size (PATH -> PATH.1 -> ... -> PATH.N). Written here
 * rather than with a rotating-stream library: the policy that matters (drop and count rather
 * than buffer without end, a fixed mode on every new file, rotation between batches so a line
 * is never split) is a few lines over fs, and a library would be one more dependency of serve.
 */
export class AuditLog {
  private fd: number;
  private size: number;
  private pending: string[] = [];
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
    if (this.pending.length >= this.options.maxPending || this.failure) {
      this.dropped++;
      return;
    }
    this.pending.push(`${JSON.stringify(entry)}\n`);
    if (!this.writing) this.flushSoon();
  }

  /** Resolves once every line written so far is on disk (tests, and close): a waiting batch goes now. */
  flushed(): Promise<void> {
    if (!this.writing && this.pending.length === 0) return Promise.resolve();
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
    let room = maxBytes - this.size;
    if (this.size > 0 && Buffer.byteLength(this.pending[0]!) > room) {
      this.rotate();
      room = maxBytes - this.size;
    }
    let take = 0;
    let length = 0;
    for (const line of this.pending) {
      const size = Buffer.byteLength(line);
      if (take > 0 && length + size > room) break; // a line longer than a whole file still goes, alone
      take++;
      length += size;
    }
    const full = take < this.pending.length;
    const bytes = Buffer.from(this.pending.slice(0, take).join(''));
    this.pending = this.pending.slice(take);
    writeAsync(this.fd, bytes, 0, bytes.length, null, (error) => {
      if (error) this.fail(`cannot write the audit log ${this.path}: ${error.message}`);
      else this.size += bytes.length;
      if (this.pending.length && !this.failure) return full ? this.flush() : this.flushSoon();
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
