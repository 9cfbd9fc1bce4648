import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { ToolError } from '../../core/errors.js';
import { processAlive } from '../../core/process-alive.js';
import { removeOrphanTemps, tempName } from './atomic-write.js';

/**
 * A lock file beside the config, created whole (its owner written to a scratch file and linked
 * into place, which fails if the lock exists): portable across processes on local disks, and
 * recoverable: a lock whose owner died is taken over safely.
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
      return { mtimeMs }; // written by a filesystem without links (below), right now; or garbage
    }
  } catch {
    return undefined; // gone already
  }
}

function isStale(found: { owner?: LockOwner; mtimeMs: number }, staleMs: number, now: number): boolean {
  const age = now - found.mtimeMs;
  if (!found.owner) return age > 2_000; // only where links are refused is a lock seen before its owner is written
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

const newOwner = (token: string): LockOwner => ({ pid: process.pid, host: hostname(), token, time: Date.now() });

/**
 * How link() says a filesystem refuses it, the scratch file having just been written in the same
 * folder: EPERM (FAT, some FUSE), ENOTSUP/EOPNOTSUPP/ENOSYS (network and FUSE filesystems), EACCES
 * (Android's app sandbox refuses every hard link).
 */
const LINK_REFUSED = new Set(['EPERM', 'EACCES', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Creates `path` holding `owner`, or returns false if it exists. The owner is written to a scratch
 * file first and linked into place, so no one ever reads a lock without its owner (an empty lock
 * had to be given a grace period, and a holder stalled past it lost its lock). A filesystem that
 * refuses links gets the file created exclusively and written right after.
 */
function createWhole(path: string, owner: LockOwner): boolean {
  // A temp file of this process's: one a killed process left is cleared as atomicWrite's are.
  const scratch = tempName(path);
  writeFileSync(scratch, JSON.stringify(owner), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(scratch, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (!LINK_REFUSED.has(code ?? '')) throw error;
    return createExclusive(path, owner);
  } finally {
    try {
      unlinkSync(scratch);
    } catch {
      /* already gone */
    }
  }
}

function createExclusive(path: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, JSON.stringify(owner));
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Removes the lock at `path` if it is stale when looked at now. Breakers take turns under a guard
 * file and read the lock again inside it: a decision made on what a waiter saw earlier could
 * remove the lock a live process took meanwhile (its previous owner having ended), and that holder
 * then found its lock gone mid-edit. Inside the guard the lock cannot change hands: only a breaker
 * removes another's lock, and a new one is created only once it is gone.
 */
export function breakLockIfStale(path: string, staleMs: number): boolean {
  const guard = guardOf(path);
  const token = randomBytes(12).toString('hex');
  if (!createWhole(guard, newOwner(token))) {
    clearDeadGuard(guard);
    return false; // another breaker is at it; look again after a wait
  }
  try {
    const found = readOwner(path);
    if (!found) return true;
    if (!isStale(found, staleMs, Date.now())) return false;
    try {
      unlinkSync(path);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT';
    }
  } finally {
    // Only our own: a guard another breaker holds (ours moved aside by a clearer that judged an
    // earlier, dead one, and not put back in time) is theirs to remove; removing it would let a third in.
    if (readOwner(guard)?.owner?.token === token) {
      try {
        unlinkSync(guard);
      } catch {
        /* already gone */
      }
    }
  }
}

const guardOf = (path: string) => `${path}.break`;

/**
 * A guard whose breaker died inside it (a window of a few system calls) would stop every later
 * break: it is moved aside and removed, and put back if what was moved is a live breaker's.
 */
function clearDeadGuard(guard: string): void {
  const seen = readOwner(guard);
  if (!seen || !isStale(seen, 10_000, Date.now())) return;
  // A temp file of ours: one left by a killed clearer is removed by removeOrphanTemps(guard) at the next acquire.
  const aside = tempName(guard);
  try {
    renameSync(guard, aside);
  } catch {
    return; // someone else cleared it first
  }
  const moved = readOwner(aside)?.owner;
  if (moved && moved.token !== seen.owner?.token) {
    try {
      linkSync(aside, guard);
    } catch {
      /* a newer breaker holds the guard */
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
  removeOrphanTemps(path, guardOf(path));
  for (;;) {
    try {
      if (createWhole(path, newOwner(token))) return makeLock(path, token);
    } catch (error) {
      throw new ToolError('FILE_ACCESS', `Cannot create lock file ${path}: ${(error as Error).message}`, {
        details: { file: path, errno: (error as NodeJS.ErrnoException).code },
        hint: 'Check that the config folder exists and is writable.',
      });
    }
    const found = readOwner(path);
    if (found && isStale(found, staleMs, Date.now()) && breakLockIfStale(path, staleMs)) continue;
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
