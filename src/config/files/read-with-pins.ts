import { readFileSync } from 'node:fs';
import { linkTarget } from './link-target.js';
import { lockHeld } from './lock.js';
import { dropCountsOf, dropsBetween, pinFilePath } from './pin-file.js';

/**
 * The config read with the text of its lock file as it was just before (proxy/pins/pin-keeper.ts:
 * a keeper made later takes a server whose approvals were dropped since as dropped under the entry
 * read now). An edit that replaces a server drops its approvals in the lock, then writes the
 * config, both under the config's edit lock: a read of the lock, then of the config, made inside
 * that edit would pair the new drop count with the old entry, and the old server would be pinned
 * on first use under the new count. So the edit lock is looked at between the two reads, and a
 * read never waits for it: an edit lock held then (an edit in progress, or one left by a process
 * whose pid lives again, or written by anyone who can write the folder) makes the lock's text ""
 * (fail closed: every drop the lock counts when a keeper is made is taken as made since, so a
 * server whose approvals were ever dropped is not pinned on first use in this process until it is
 * approved, its entry changes or the process restarts), and the config is read once, as it is.
 *
 * An edit can also run whole between the lock's read and the look at the edit lock (a process
 * descheduled there, as a loaded machine does): the config then names the new entry while the
 * text read counts no drop of the old one, and the new entry would be taken as the one whose
 * approvals were dropped, a person's replacement withheld. Its drop is in the lock file by the
 * time the config has been read (it is written first), so the lock is read again after the
 * config: drops counted meanwhile make both reads again, up to READS times, then "" (fail closed,
 * as above). The config's read is made again with them: it reads the file only (its secrets are
 * read after, once). The lock file is only read here, and parsed only when its text changed
 * between the two reads: a command that never pins pays two small reads.
 */
export async function readWithPinText<T>(configPath: string, readConfig: () => Promise<T>): Promise<PinnedRead<T>> {
  const pinPath = pinFilePath(configPath);
  const editLock = `${editTarget(configPath)}.lock`;
  for (let read = 1; ; read++) {
    const pinText = readPinText(pinPath);
    if (lockHeld(editLock)) return { pinText: '', value: await readConfig(), heldLock: editLock };
    const value = await readConfig();
    const settled = sameDrops(pinText, readPinText(pinPath), pinPath);
    if (settled || read === READS) return { pinText: settled ? pinText : '', value };
  }
}

/**
 * Whether two texts of the lock count the same drops (all a keeper takes of the text read with the
 * config): first-use pins a serve writes meanwhile change the text, not what the read pairs.
 * Parsed only when the texts differ, which is rare: a command's start reads the lock, never parses it.
 */
function sameDrops(before: string, after: string, path: string): boolean {
  if (before === after) return true;
  return dropsBetween(dropCountsOf(before, path) ?? {}, dropCountsOf(after, path) ?? {}).length === 0;
}

/** How many times a read is made while the drops the lock file counts keep changing under it (edits) before its text is taken as "". */
const READS = 3;

/** A read of the config with its lock file's text; `heldLock`: the edit lock that made that text "" (the front end warns of it: app/held-edit-lock.ts). */
export interface PinnedRead<T> {
  pinText: string;
  value: T;
  heldLock?: string;
}

/**
 * The lock file's text; "" when there is none, and when it cannot be read: every drop the file
 * counts when a keeper is made is then taken as made since (fail closed). Read at once: it is
 * small, and a read through the thread pool cost a command's start more than the read itself.
 */
function readPinText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Where an edit of the config takes its lock (config/edit.ts, the same helper); the path itself when its links cannot be followed (the read then fails on its own). */
function editTarget(path: string): string {
  try {
    return linkTarget(path);
  } catch {
    return path;
  }
}
