#!/usr/bin/env node
// Runs vitest (arguments are passed on), then checks that the suite cleaned up after itself: no
// temp folder with the suite's prefixes left, no process it started still alive. The tests clean
// up with the runner's hooks (test/helpers/cli.ts); this is the check that they did, and it fails
// the run when they did not. The run gets a TMPDIR of its own and a marker in the environment that
// every process it starts inherits, so the check sees only what this run made.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIXES = ['mcpkit-'];
const marker = `mcpkit-test-run-${process.pid}-${Date.now()}`;
const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-suite-'));
const env = { ...process.env, TMPDIR: scratch, MCPKIT_TEST_RUN: marker };
// The tests speak plain HTTP to loopback only, and start thousands of Node processes: an extra CA
// bundle (NODE_EXTRA_CA_CERTS, which this machine sets) is read by each at start, for nothing
// (about 40-90 ms each, measured here). Kept when a test is pointed at a real service (ARANGO_URL),
// which may be reached over TLS.
if (!process.env.ARANGO_URL) delete env.NODE_EXTRA_CA_CERTS;

// `--checks`: the static checks (type check, lint, layers) run after the tests, the three at once.
// Beside the tests (the earlier way, at a lower priority) they once took CPU the tests left idle;
// the suite now keeps both cores busy throughout (1.92 of 2, sampled from /proc/stat), and beside
// it the checks' 25 CPU-s made vitest's run 27 s longer (358.6 s against 331.2 without them, back
// to back on one clone; likely why: with autogroups on, as here, Linux weighs nice only within a
// session's group, and theirs was not vitest's). After the tests they take 10-15 s of wall time.
// Their output is shown once all three have ended; one that fails fails the run.
const withChecks = process.argv.includes('--checks');
const vitestArgs = process.argv.slice(2).filter((a) => a !== '--checks');

function startCheck(script) {
  // npm_execpath: the npm that runs this script (npm test); else the npm on the PATH.
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  // GOGC: the type check (TypeScript 7, in Go) collects its garbage a quarter as often. With the
  // one thread its npm script asks for (--singleThreaded), 8.8 CPU-s on a fresh clone against 11.6
  // with neither, for some 60 MB more at its peak of about 0.8 GB.
  const child = spawn(npm[0], [...npm.slice(1), 'run', '-s', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GOGC: process.env.GOGC ?? '400' },
  });
  runningChecks.add(child);
  child.once('close', () => runningChecks.delete(child));
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ script, ok: false, output: String(error) }));
    child.once('close', (code) => resolve({ script, ok: code === 0, output }));
  });
}

// In a session of its own (detached), so that what it starts can be told from everything else
// on the machine; signals sent to this runner are passed on to it.
const vitest = spawn(process.execPath, [join(import.meta.dirname, '../node_modules/vitest/vitest.mjs'), 'run', ...vitestArgs], {
  stdio: 'inherit',
  env,
  detached: true,
});
// A run stopped by a signal stops there: the checks are not started after it (a check running
// gets the signal too).
let stopped = false;
const runningChecks = new Set();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    stopped = true;
    vitest.kill(signal);
    for (const check of runningChecks) check.kill(signal);
  });
const vitestStatus = await new Promise((resolve) => vitest.once('exit', (code) => resolve(code)));
const runSessions = vitest.pid === undefined ? [] : [vitest.pid];
// Started at once, beside the litter check below: it may wait up to 3 s for stragglers, which
// leaves the cores to the checks (they are not the run's: their environment has no marker).
const checks = withChecks && !stopped ? ['typecheck', 'lint', 'check:layers'].map(startCheck) : [];

/** A process's session (/proc/PID/stat, field 6); undefined where unreadable. */
function sessionOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
  } catch {
    return undefined;
  }
}

/**
 * Processes this run left (Linux /proc; elsewhere none are found): those whose environment carries
 * its marker, and every process of the run's sessions: vitest's own (it runs in a session of its
 * own, so everything it starts is in it), and that of each marked session leader (a daemon starts
 * one). The upstream servers mcpkit starts get only a small base environment, without the marker,
 * so their session is how they are found.
 */
function survivors(sessions) {
  const found = [];
  let pids;
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return found;
  }
  const leaders = new Set(sessions);
  const seen = [];
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    let marked = false;
    try {
      marked = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`MCPKIT_TEST_RUN=${marker}`);
    } catch {
      /* not ours to read */
    }
    const session = sessionOf(pid);
    if (marked && session === Number(pid)) leaders.add(session);
    seen.push({ pid: Number(pid), marked, session });
  }
  for (const p of seen) {
    if (!p.marked && !leaders.has(p.session)) continue;
    try {
      found.push({ pid: p.pid, command: readFileSync(`/proc/${p.pid}/cmdline`, 'latin1').split('\0').join(' ').trim() });
    } catch {
      /* gone already */
    }
  }
  return found;
}

// A process may still be on its way out when vitest returns: give stragglers a moment.
let alive = survivors(runSessions);
for (let waited = 0; alive.length && waited < 3000; waited += 250) {
  await new Promise((r) => setTimeout(r, 250));
  alive = survivors(runSessions);
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

let checksFailed = false;
for (const check of await Promise.all(checks)) {
  if (check.output.trim()) console.error(`\n${check.script}:\n${check.output.trimEnd()}`);
  console.error(`${check.script}: ${check.ok ? 'passed' : 'FAILED'}`);
  checksFailed ||= !check.ok;
}
process.exit(vitestStatus === 0 ? (litter || checksFailed ? 1 : 0) : (vitestStatus ?? 1));
