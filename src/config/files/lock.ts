import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, linkSync } from 'node:fs';
import { hostname } from 'node:os';
import { ToolError } from '../../core/errors.js';
import { processAlive } from '../../core/process-alive.js';

/**
 * A lock file created with O_EXCL beside the config. Portable across processes (and NFS-free
 * local disks), and recoverable: a lock whose owner died is taken over safely.
 */
export interface LockOwner {
  pid: number;
  host: string;
  token: string;
  time: number;
}

export interface FileLock {
  readonly path: string;
  readonly token: string;
  /** True while the lock file still names us (a lock stolen as stale must not commit). */
  held(): boolean;
  release(): void;
}

export interface LockOptions {
  /**
   * How long one holder may keep us waiting. The wait starts again whenever the lock changes
   * hands: fifty editors queued behind each other all get their turn, however long the queue.
   */
  timeoutMs?: number;
  /** A lock older than this is stale even when its owner cannot be checked (another host). */
  staleMs?: number;
}

function readOwner(path: string): { owner?: LockOwner; mtimeMs: number } | undefined {
  try {
    const mtimeMs = statSync(path).mtimeMs;
    try {
      return { owner: JSON.parse(readFileSync(path, 'utf8')) as LockOwner, mtimeMs };
    } catch {
      return { mtimeMs }; // being written right now, or garbage
    }
  } catch {
    return undefined; // gone already
  }
}

function isStale(found: { owner?: LockOwner; mtimeMs: number }, staleMs: number, now: number): boolean {
  const age = now - found.mtimeMs;
  if (!found.owner) return age > 2_000; // an owner writes its record right after creating the file
  // On this machine the owner can be asked directly: a live one keeps its lock however long it
  // works (a large config takes seconds to edit). Only another host's lock goes by its age.
  if (found.owner.host === hostname()) return !processAlive(found.owner.pid);
  return age > staleMs;
}

/** Whether a lock is held now: its file is there and is not stale (a dead owner's, or one never written). */
export function lockHeld(path: string, staleMs = 60_000): boolean {
  const found = readOwner(path);
  return found !== undefined && !isStale(found, staleMs, Date.now());
}

/** Moves a stale lock aside atomically; if what we moved turns out to be a fresh lock, put it back. */
function breakStaleLock(path: string, observed: LockOwner | undefined): void {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else broke it first
  }
  const moved = readOwner(aside)?.owner;
  if (observed && moved && moved.token !== observed.token) {
    try {
      linkSync(aside, path); // fails if yet another process holds the lock by now
    } catch {
      /* that process owns the lock; the one we moved will see held() === false and retry */
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    /* already cleaned */
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function acquireLock(path: string, options: LockOptions = {}): Promise<FileLock> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const staleMs = options.staleMs ?? 60_000;
  const token = randomBytes(12).toString('hex');
  let waitingOn: string | undefined;
  let since = Date.now();
  let delay = 2;
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        const owner: LockOwner = { pid: process.pid, host: hostname(), token, time: Date.now() };
        writeSync(fd, JSON.stringify(owner));
      } finally {
        closeSync(fd);
      }
      return makeLock(path, token);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new ToolError('FILE_ACCESS', `Cannot create lock file ${path}: ${(error as Error).message}`, {
          details: { file: path, errno: (error as NodeJS.ErrnoException).code },
          hint: 'Check that the config folder exists and is writable.',
        });
      }
    }
    const found = readOwner(path);
    if (found && isStale(found, staleMs, Date.now())) {
      breakStaleLock(path, found.owner);
      continue;
    }
    const holder = found?.owner?.token;
    if (holder !== undefined && holder !== waitingOn) {
      waitingOn = holder;
      since = Date.now();
    }
    if (Date.now() - since > timeoutMs) {
      const who = found?.owner ? ` by process ${found.owner.pid} on ${found.owner.host}` : '';
      throw new ToolError('TIMEOUT', `The config is locked${who}; gave up after ${timeoutMs} ms of waiting for it.`, {
        details: { lock: path, owner: found?.owner },
        hint: `If no mcpkit command is running, delete ${path}.`,
      });
    }
    // Jitter keeps 50 waiting processes from waking in lock-step.
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
}

function makeLock(path: string, token: string): FileLock {
  let released = false;
  const held = () => readOwner(path)?.owner?.token === token;
  return {
    path,
    token,
    held,
    release() {
      if (released) return;
      released = true;
      if (held()) {
        try {
          unlinkSync(path);
        } catch {
          /* already gone */
        }
      }
    },
  };
}
