import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';

/**
 * With MCPKIT_TEST_CPU=FILE, each test file appends one JSON line to FILE: the CPU seconds its
 * worker spent on it (user + system) and those of the processes it started and reaped (a child's
 * own reaped children included, so serve's upstreams count when serve ends them). Wall time lies
 * on a loaded machine; CPU hardly moves with load, and CPU is what a 2-core run runs out of.
 * Read from the file's import to its last hook; a worker's own start is not a file's.
 * `node scripts/test-cpu.mjs FILE` sums it up. Linux only (/proc); elsewhere nothing is written.
 */
const out = process.env.MCPKIT_TEST_CPU;

/** utime, stime, cutime, cstime of this process, in seconds (/proc/self/stat fields 14-17). */
function cpuNow(): number[] | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields.slice(11, 15).map((ticks) => Number(ticks) / 100);
  } catch {
    return undefined;
  }
}

const atStart = out ? cpuNow() : undefined;
if (out && atStart) {
  // Registered first, so it runs after every other file hook (vitest runs after-hooks as a stack):
  // what the file's own hooks end (its processes, its servers) is counted.
  const file = expect.getState().testPath ?? 'unknown';
  afterAll(() => {
    const atEnd = cpuNow();
    if (!atEnd) return;
    const [user, sys, childUser, childSys] = atEnd.map((v, i) => v - atStart[i]!);
    const line = { file, self: round(user! + sys!), children: round(childUser! + childSys!) };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}

function round(seconds: number): number {
  return Math.round(seconds * 100) / 100;
}
