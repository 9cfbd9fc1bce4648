import { readFileSync } from 'node:fs';

/**
 * Whether a process runs: it answers signal 0 (or exists as another user's), and has not exited.
 * A process that has exited but that no one has reaped yet, a zombie, still answers signal 0
 * until its parent, or the init that adopted it, reaps it: the daemon's parent (`daemon start`)
 * is gone, and an init may reap late (seconds, in some VMs) or never (a container whose first
 * process reaps nothing), so `daemon stop` waited for that, or timed out over a daemon that had
 * ended. Linux says so in /proc; elsewhere signal 0 is the answer.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !hasExited(pid);
}

function hasExited(pid: number): boolean {
  if (!procIsOurs()) return false;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false; // no /proc (not Linux), or reaped meanwhile: signal 0 answered
  }
  return EXITED.has(processState(stat) ?? '');
}

/**
 * Whether /proc numbers processes as signal 0 does. /proc shows the pid namespace of whoever
 * mounted it, which need not be ours (a container with the host's /proc bound in, `unshare --pid`
 * without --mount-proc): there /proc/PID is another process, and reading a zombie's state there
 * would free a live holder's lock. /proc/self names us by the pid it numbers us with. Read at each
 * check (one small read; checks are rare) rather than kept: no state in the module.
 */
function procIsOurs(): boolean {
  try {
    return pidOfStat(readFileSync('/proc/self/stat', 'utf8')) === process.pid;
  } catch {
    return false;
  }
}

/** The pid a /proc/PID/stat line starts with. Pure. */
export function pidOfStat(stat: string): number | undefined {
  const match = /^(\d+) \(/.exec(stat);
  return match ? Number(match[1]) : undefined;
}

/** Zombie, dead. */
const EXITED = new Set(['Z', 'X', 'x']);

/**
 * The state letter of a /proc/PID/stat line: the field after the command name, which is in
 * parentheses and may itself hold spaces and parentheses (so it is found from the last one). Pure.
 */
export function processState(stat: string): string | undefined {
  const end = stat.lastIndexOf(')');
  if (end < 0) return undefined;
  return /^ (\S) /.exec(stat.slice(end + 1))?.[1];
}
