import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processAlive } from '../../core/process-alive.js';

/**
 * Temp files live beside the target (same filesystem, so rename is atomic) and name their writer's
 * pid: removeOrphanTemps(target) clears those a killed writer left. The config lock names its
 * scratch files so too (./lock.ts).
 */
export function tempName(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* some filesystems refuse fsync on a directory; the rename is still atomic */
  }
}

/**
 * Removes temp files of these targets (files of one folder, read once) left by writers that were
 * killed (their pid is gone).
 */
export function removeOrphanTemps(...targets: [string, ...string[]]): void {
  const folder = dirname(targets[0]);
  const prefixes = targets.map((target) => `.${basename(target)}.`);
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!entry.endsWith('.tmp')) continue;
    // The writer's pid follows the target's name (`.c.yaml.lock.` is also the start of `.c.yaml.lock.break.`'s: no pid there).
    const pid = prefixes
      .filter((prefix) => entry.startsWith(prefix))
      .map((prefix) => Number(entry.slice(prefix.length).split('.', 1)[0]))
      .find((n) => Number.isInteger(n) && n > 0);
    if (pid !== undefined && !processAlive(pid)) {
      try {
        unlinkSync(join(folder, entry));
      } catch {
        /* raced with another cleaner */
      }
    }
  }
}

export interface AtomicWriteOptions {
  /** Called after the temp file is complete and synced, before the rename (tests kill the process here). */
  beforeRename?: (tempPath: string) => void;
  /** The file's permission bits, whatever they were (a file of secrets is 0600 even if it was looser). */
  mode?: number;
}

/**
 * Write to a temp file, fsync it, rename over the target, fsync the folder: a reader (or a crash)
 * sees the old file or the new one, never a mix. Keeps the target's permission bits; new files are 0600
 * because configs hold tokens.
 */
export function atomicWrite(target: string, text: string, options: AtomicWriteOptions = {}): void {
  mkdirSync(dirname(target), { recursive: true });
  let mode = options.mode ?? 0o600;
  if (options.mode === undefined) {
    try {
      mode = statSync(target).mode & 0o777;
    } catch {
      /* new file */
    }
  }
  const temp = tempName(target);
  const fd = openSync(temp, 'wx', mode);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    options.beforeRename?.(temp);
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      /* never created or already renamed */
    }
    throw error;
  }
  fsyncDir(dirname(target));
}
