import { processShared } from '../core/process-shared.js';
import type { Logger } from '../core/logger.js';

/** The edit locks this process has warned of: each once, however often the config is read while it is held. */
const warned = processShared('heldEditLocksWarned', () => new Set<string>()); // the process's, whichever copy warns (core/process-shared.ts)

/**
 * Warns, once per process and lock path, that the config was read while its edit lock was held
 * (config/files/read-with-pins.ts): the lock file's text was then read as "" (fail closed), so a
 * server whose approvals were ever dropped is not pinned on first use until a read finds the lock
 * free. Said through the logger (stderr, never stdout: serve may be speaking MCP on it). Said once:
 * serve reads the config at every reload, and a lock left behind would otherwise fill its log.
 */
export function warnOfHeldEditLock(logger: Logger, lockPath: string | undefined): void {
  if (lockPath === undefined || warned.has(lockPath)) return;
  warned.add(lockPath);
  logger.warn(heldEditLockWarning(lockPath));
}

/** What the warning says: the lock, what holding it means here, and what to do. Pure. */
export function heldEditLockWarning(lockPath: string): string {
  return (
    `the config was read while its edit lock ${lockPath} was held (an edit of the config under way, or a lock left behind): ` +
    'servers whose tool approvals were dropped (replaced or removed) are not pinned on first use by this process until a reload reads the config with the lock free. ' +
    `If no mcpkit command is editing the config, delete ${lockPath}.`
  );
}
