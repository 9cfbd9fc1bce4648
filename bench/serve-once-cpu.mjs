#!/usr/bin/env node
// The CPU of one whole stdio serve, its own only (not its upstream's): start, initialize,
// tools/list, one tools/call of server-everything's echo, stdin closed, exit. Median of N runs,
// builds interleaved so that load on the machine falls on each alike. The first listing pins on
// first use and scans what it pinned, so the scanner's start-up is in the figure.
// With --first-slow each build's serve caches are removed first, and one session that waits 1.5 s
// between initialize and tools/list runs before those measured, as a loaded machine's first serve
// of a build (the suite's) does: the code cache V8 is then given is what that session leaves.
// Usage: node bench/serve-once-cpu.mjs [runs=5] [--against DIR] [--cpu-prof DIR] [--stay MS] [--first-slow]   (needs "npm run build" first)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const against = argv.includes('--against') ? argv.splice(argv.indexOf('--against'), 2)[1] : undefined;
const firstSlow = argv.includes('--first-slow') ? argv.splice(argv.indexOf('--first-slow'), 1).length > 0 : false;
// --cpu-prof DIR: each measured serve writes a V8 CPU profile there (bench/profile-top.mjs reads them).
// --stay MS: the client waits MS after the call before it closes stdin, as a test's longer session
// does: the reload that serve's own write of the pins sets off (the config watcher sees the lock
// file change, ~120 ms after the first listing) is then in the figure.
const stay = argv.includes('--stay') ? Number(argv.splice(argv.indexOf('--stay'), 2)[1]) : 0;
const profDir = argv.includes('--cpu-prof') ? argv.splice(argv.indexOf('--cpu-prof'), 2)[1] : undefined;
const runs = Number(argv[0] ?? 5);
const root = new URL('..', import.meta.url).pathname;
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
// process.cpuUsage() at exit: the process's own CPU, all its threads, none of its children's.
const atExit = `data:text/javascript,${encodeURIComponent(
  "import { writeFileSync } from 'node:fs'; process.on('exit', () => { const u = process.cpuUsage(); writeFileSync(process.env.CPU_OUT, String((u.user + u.system) / 1000)); });",
)}`;

async function once(bin, pause = 0) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-once-'));
  try {
    writeFileSync(join(dir, 'cfg.yaml'), `mcp_servers:\n  everything:\n    command: ${process.execPath}\n    args: [${everything}, stdio]\n`);
    const env = { ...process.env, XDG_CONFIG_HOME: join(dir, 'xdg'), CPU_OUT: join(dir, 'cpu'), MCPKIT_LOG_LEVEL: 'error' };
    delete env.NODE_EXTRA_CA_CERTS; // adds ~90 ms to every node start here
    delete env.MCPKIT_CONFIG;
    const child = spawn(
      process.execPath,
      [...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []), '--import', atExit, bin, 'serve', '--config', join(dir, 'cfg.yaml')],
      {
        env,
        cwd: dir,
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const answered = (id) =>
      new Promise((resolve) => {
        const check = () => (out.includes(`"id":${id}`) ? resolve() : setTimeout(check, 5));
        check();
      });
    const send = (m) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
    await answered(1);
    send({ method: 'notifications/initialized' });
    if (pause) await new Promise((resolve) => setTimeout(resolve, pause));
    send({ id: 2, method: 'tools/list' });
    await answered(2);
    send({ id: 3, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'hi' } } });
    await answered(3);
    if (!out.includes('"text":"Echo: hi"')) throw new Error(`the call was not answered by server-everything's echo: ${out.slice(-300)}`);
    if (stay) await new Promise((resolve) => setTimeout(resolve, stay));
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    return Number(readFileSync(join(dir, 'cpu'), 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const builds = { this: join(root, 'bin/run.js'), ...(against ? { against: join(against, 'bin/run.js') } : {}) };
const cpu = Object.fromEntries(Object.keys(builds).map((k) => [k, []]));
if (firstSlow)
  for (const bin of Object.values(builds)) {
    const cli = join(bin, '../../dist/cli');
    for (const f of readdirSync(cli)) if (f.endsWith('.v8cache')) rmSync(join(cli, f));
    await once(bin, 1500);
  }
for (let i = 0; i < runs; i++) for (const [name, bin] of Object.entries(builds)) cpu[name].push(await once(bin));
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const [name, ms] of Object.entries(cpu)) console.log(`${name}: median ${median(ms).toFixed(0)} ms CPU (${ms.map((m) => m.toFixed(0)).join(', ')})`);
