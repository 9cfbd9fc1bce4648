#!/usr/bin/env node
// Runs vitest (arguments are passed on), then checks that the suite cleaned up after itself: no
// temp folder with the suite's prefixes left, no process it started still alive. The tests clean
// up with the runner's hooks (test/helpers/cli.ts); this is the check that they did, and it fails
// the run when they did not. The run gets a TMPDIR of its own and a marker in the environment that
// every process it starts inherits, so the check sees only what this run made.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIXES = ['mcpkit-'];
const marker = `mcpkit-test-run-${process.pid}-${Date.now()}`;
const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-suite-'));
const env = { ...process.env, TMPDIR: scratch, MCPKIT_TEST_RUN: marker };
// The tests speak plain HTTP to loopback only, and start thousands of Node processes: an extra CA
// bundle (NODE_EXTRA_CA_CERTS, which this machine sets) is read by each at start, for nothing
// (about 40-90 ms each, FINDINGS.md). Kept when a test is pointed at a real service (ARANGO_URL),
// which may be reached over TLS.
if (!process.env.ARANGO_URL) delete env.NODE_EXTRA_CA_CERTS;

const vitest = spawnSync(process.execPath, [join(import.meta.dirname, '../node_modules/vitest/vitest.mjs'), 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env,
});

/** Processes whose environment carries this run's marker (Linux /proc; elsewhere none are found). */
function survivors() {
  const found = [];
  let pids;
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return found;
  }
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`MCPKIT_TEST_RUN=${marker}`)) continue;
      found.push({ pid: Number(pid), command: readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim() });
    } catch {
      /* gone already, or not ours to read */
    }
  }
  return found;
}

// A process may still be on its way out when vitest returns: give stragglers a moment.
let alive = survivors();
for (let waited = 0; alive.length && waited < 3000; waited += 250) {
  await new Promise((r) => setTimeout(r, 250));
  alive = survivors();
}
const leftDirs = readdirSync(scratch).filter((name) => PREFIXES.some((p) => name.startsWith(p)));

let litter = false;
if (leftDirs.length) {
  litter = true;
  console.error(`\nThe test suite left ${leftDirs.length} temp folder(s) behind (they must be removed by the runner's hooks):`);
  for (const name of leftDirs.slice(0, 20)) console.error(`  ${join(scratch, name)}`);
}
if (alive.length) {
  litter = true;
  console.error(`\nThe test suite left ${alive.length} process(es) running (they must be ended by the runner's hooks):`);
  for (const p of alive) {
    console.error(`  ${p.pid}: ${p.command}`);
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
rmSync(scratch, { recursive: true, force: true });
if (litter) console.error('\nlitter check: failed');
process.exit(vitest.status === 0 ? (litter ? 1 : 0) : (vitest.status ?? 1));
