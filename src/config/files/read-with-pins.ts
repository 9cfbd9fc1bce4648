import { readFileSync } from 'node:fs';
import { linkTarget } from './link-target.js';
import { lockHeld } from './lock.js';
import { pinFilePath } from './pin-file.js';

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
 * server whose approvals were ever dropped is not pinned on first use in this process until a
 * reload), and the config is read once, as it is. The lock file is only read here, never parsed:
 * a command that never pins pays one small read.
 */
export async function readWithPinText<T>(configPath: string, readConfig: () => Promise<T>): Promise<PinnedRead<T>> {
  const pinText = readPinText(pinFilePath(configPath));
  const editLock = `${editTarget(configPath)}.lock`;
  const editing = lockHeld(editLock);
  return { pinText: editing ? '' : pinText, value: await readConfig(), ...(editing ? { heldLock: editLock } : {}) };
}

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
