import { processShared } from '../../core/process-shared.js';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, lstatSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { HostFacts } from './launch-plan.js';

/** Resolves a command on a PATH, as execvp would (undefined: not found, or not executable). */
export function whichOn(path: string | undefined, command: string): string | undefined {
  for (const folder of (path ?? '').split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, command);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

function statOf(path: string): ReturnType<HostFacts['stat']> {
  try {
    const found = lstatSync(path);
    if (found.isSymbolicLink()) return { kind: statSync(path, { throwIfNoEntry: false })?.isDirectory() ? 'dir' : 'file', link: readlinkSync(path) };
    return { kind: found.isDirectory() ? 'dir' : found.isFile() ? 'file' : 'other' };
  } catch {
    return undefined;
  }
}

/** Whether bubblewrap can make a box here (user namespaces may be off, or a container may forbid them): undefined when it can. */
function bwrapProblem(bwrap: string): string | undefined {
  const tried = spawnSync(bwrap, ['--ro-bind', '/', '/', '--unshare-all', '--die-with-parent', '--new-session', 'true'], { encoding: 'utf8', timeout: 5000 });
  if (tried.error) return tried.error.message;
  if (tried.status !== 0) return (tried.stderr || `it exited with ${tried.status}`).trim().split('\n')[0]!;
  return undefined;
}

// Probed once for the process, whichever copy of this module asks (core/process-shared.ts): each probe spawns bubblewrap.
const probed = processShared('hostFacts', () => new Map<string, HostFacts>());

/**
 * What this host offers for starting servers (./launch-plan.ts), found on the PATH of `env` once
 * per process (a bubblewrap that cannot make a box is found out by trying one).
 */
export function hostFacts(env: Readonly<Record<string, string | undefined>>): HostFacts {
  const key = `${env.PATH ?? ''}\u0000${env.HOME ?? ''}`;
  let facts = probed.get(key);
  if (facts) return facts;
  const which = (command: string) => whichOn(env.PATH, command);
  const linux = process.platform === 'linux';
  const bwrap = linux ? which('bwrap') : undefined;
  const problem = bwrap ? bwrapProblem(bwrap) : 'bwrap is not on the PATH';
  facts = {
    platform: process.platform,
    home: env.HOME ?? homedir(),
    ...(bwrap && !problem ? { bwrap } : { bwrapProblem: problem }),
    ...(linux && which('setsid') ? { setsid: which('setsid')! } : {}),
    ...(linux && which('setpriv') ? { setpriv: which('setpriv')! } : {}),
    ...(linux && which('prlimit') ? { prlimit: which('prlimit')! } : {}),
    which,
    stat: statOf,
    list: listOf,
  };
  probed.set(key, facts);
  return facts;
}

/** The names in a folder, sorted; undefined where it cannot be read. */
function listOf(path: string): string[] | undefined {
  try {
    return readdirSync(path).sort();
  } catch {
    return undefined;
  }
}
