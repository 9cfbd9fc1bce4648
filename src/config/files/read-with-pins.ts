import { readFileSync, realpathSync } from 'node:fs';
import { ToolError } from '../../core/errors.js';
import { lockHeld } from './lock.js';
import { pinFilePath } from './pin-file.js';

/** How long a read of the config waits for an edit in progress to end before it gives up. */
export const EDIT_WAIT_MS = 15_000;

/**
 * The config read with the text of its lock file as it was just before (proxy/pins/pin-keeper.ts:
 * a keeper made later takes a server whose approvals were dropped since as dropped under the entry
 * read now). An edit that replaces a server drops its approvals in the lock, then writes the
 * config, both under the config's edit lock: a read of the lock, then of the config, made inside
 * that edit would pair the new drop count with the old entry, and the old server would be pinned
 * on first use under the new count. So the edit lock is looked at between the two reads; an edit
 * in progress is waited for (up to EDIT_WAIT_MS), and both are read again. The lock file is only
 * read here, never parsed: a command that never pins pays one small read.
 */
export async function readWithPinText<T>(configPath: string, readConfig: () => Promise<T>): Promise<{ pinText: string; value: T }> {
  const editLock = `${realTarget(configPath)}.lock`;
  const deadline = Date.now() + EDIT_WAIT_MS;
  let delay = 2;
  for (;;) {
    const pinText = readPinText(pinFilePath(configPath));
    if (!lockHeld(editLock)) return { pinText, value: await readConfig() };
    if (Date.now() > deadline) throw editInProgress(configPath, editLock);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 50);
  }
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

/** The file the config path names, through symlinks, where an edit takes its lock (config/edit.ts); the path itself when there is none yet. */
function realTarget(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function editInProgress(configPath: string, editLock: string): ToolError {
  return new ToolError('TIMEOUT', `The config ${configPath} is being edited; gave up after ${EDIT_WAIT_MS} ms of waiting to read it.`, {
    details: { file: configPath, lock: editLock },
    hint: `Run the command again once the edit is done. If no mcpkit command is running, delete ${editLock}.`,
  });
}
