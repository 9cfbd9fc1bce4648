#!/usr/bin/env node
// The CPU of a daemon's life around no work, each process its own (not its upstreams'):
// `mcpkit daemon start`, the daemon it starts (dist/daemon/server/entry.js, from its start to its
// exit), `daemon status` and `daemon stop`. Median of N runs, builds interleaved so that load on
// the machine falls on each alike. With --work, the daemon also answers `call echo` and `tools`
// between its start and status (its upstream started, its tools listed and called).
// The daemon starts from V8's code cache, which its build's first daemon writes: one run of each
// build before the measured ones makes it, as any install's first daemon does once.
// Usage: node bench/daemon-cpu.mjs [runs=5] [--work] [--against DIR]   (needs "npm run build" first)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const against = argv.includes('--against') ? argv.splice(argv.indexOf('--against'), 2)[1] : undefined;
const work = argv.includes('--work') ? (argv.splice(argv.indexOf('--work'), 1), true) : false;
const runs = Number(argv[0] ?? 5);
const root = new URL('..', import.meta.url).pathname;
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
// process.cpuUsage() at exit, in a file named after what the process is: the CLI's command or the daemon.
const PRELOAD = `import { writeFileSync } from 'node:fs';
const [script = '', command, verb] = process.argv.slice(1);
const role = script.endsWith('daemon/server/entry.js') ? 'daemon' : script.endsWith('bin/run.js') ? (command === 'daemon' ? verb : command) : undefined;
if (role) process.on('exit', () => { const u = process.cpuUsage(); writeFileSync(process.env.CPU_DIR + '/' + role, String((u.user + u.system) / 1000)); });
`;

// One preload for every run: NODE_OPTIONS is part of the code cache's key, and a path of each run's own would make every daemon's cache its own.
const preDir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-daemon-pre-'));
writeFileSync(join(preDir, 'pre.mjs'), PRELOAD);
process.on('exit', () => rmSync(preDir, { recursive: true, force: true }));

function once(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-daemon-'));
  try {
    const cpuDir = join(dir, 'cpu');
    mkdirSync(cpuDir);
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    writeFileSync(join(dir, 'mcpkit.yaml'), `mcp_servers:\n  everything:\n    command: ${process.execPath}\n    args: [${everything}, stdio]\n`);
    const env = {
      ...process.env,
      XDG_RUNTIME_DIR: join(dir, 'run'),
      XDG_CONFIG_HOME: join(dir, 'xdg'),
      MCPKIT_CONFIG: join(dir, 'mcpkit.yaml'),
      CPU_DIR: cpuDir,
      NODE_OPTIONS: `--import ${pathToFileURL(join(preDir, 'pre.mjs')).href}`,
    };
    delete env.NODE_EXTRA_CA_CERTS; // adds ~90 ms to every node start here
    const lines = [['daemon', 'start'], ...(work ? [['call', 'echo', 'message=hi'], ['tools']] : []), ['daemon', 'status'], ['daemon', 'stop']];
    for (const line of lines) {
      const r = spawnSync(process.execPath, [bin, ...line], { env, cwd: dir, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${line.join(' ')} exited ${r.status}: ${r.stderr}`);
    }
    return Object.fromEntries(readdirSync(cpuDir).map((role) => [role, Number(readFileSync(join(cpuDir, role), 'utf8'))]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const builds = { this: join(root, 'bin/run.js'), ...(against ? { against: join(against, 'bin/run.js') } : {}) };
const cpu = Object.fromEntries(Object.keys(builds).map((k) => [k, []]));
for (const bin of Object.values(builds)) once(bin); // each build's first daemon writes its code cache
for (let i = 0; i < runs; i++) for (const [name, bin] of Object.entries(builds)) cpu[name].push(once(bin));

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const roles = ['start', ...(work ? ['call', 'tools'] : []), 'daemon', 'status', 'stop'];
console.log(`CPU ms, median of ${runs} (${roles.join(', ')})`);
for (const [name, samples] of Object.entries(cpu)) {
  console.log(`${name.padEnd(8)} ${roles.map((role) => `${role} ${median(samples.map((s) => s[role] ?? NaN)).toFixed(0)}`).join('  ')}`);
}
