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
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildsOf, compareBuilds, measuredServe, takeOption } from './fixtures/serve-once.mjs';

const argv = process.argv.slice(2);
const against = takeOption(argv, '--against');
const firstSlow = argv.includes('--first-slow') ? argv.splice(argv.indexOf('--first-slow'), 1).length > 0 : false;
// --cpu-prof DIR: each measured serve writes a V8 CPU profile there (bench/profile-top.mjs reads them).
// --stay MS: the client waits MS after the call before it closes stdin, as a test's longer session
// does: the reload that serve's own write of the pins sets off (the config watcher sees the lock
// file change, ~120 ms after the first listing) is then in the figure.
const stay = Number(takeOption(argv, '--stay') ?? 0);
const profDir = takeOption(argv, '--cpu-prof');
const runs = Number(argv[0] ?? 5);

function once(bin, pause = 0) {
  return measuredServe('mcpkit-bench-once-', profDir, async ({ dir, config, env, nodeArgs }) => {
    const child = spawn(process.execPath, [...nodeArgs, bin, 'serve', '--config', config], { env, cwd: dir, stdio: ['pipe', 'pipe', 'ignore'] });
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
  });
}

const builds = buildsOf(against);
if (firstSlow)
  for (const bin of Object.values(builds)) {
    const cli = join(bin, '../../dist/cli');
    for (const f of readdirSync(cli)) if (f.endsWith('.v8cache')) rmSync(join(cli, f));
    await once(bin, 1500);
  }
await compareBuilds(builds, runs, once);
