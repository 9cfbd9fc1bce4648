#!/usr/bin/env node
// The gateway's own CPU per call, next to p50, of this checkout's build and of the build it is
// compared against (BASE=/path/to/a checkout with its own `npm run build`), in one run: the SDK
// client calls server-everything's `echo` in sequence through
//   - the SDK passthrough (bench/fixtures/sdk-passthrough.mjs, stdio → stdio), the yardstick;
//   - `mcpkit serve` over stdio;
//   - `mcpkit serve --http`, a 2025-11-25 session (keep-alive node:http fetch);
//   - `mcpkit serve --http`, the client pinned to 2026-07-28.
// Every server runs side by side for the whole run and is measured in interleaved turns (round 0
// is warm-up; the table shows medians of the rest), so the load of this shared machine falls on
// all alike. CPU per call: the server's process tree (utime + stime from /proc) less what
// server-everything costs alone (measured here too, in the same turns, as its own row).
// Usage: [BASE=/work/old] [AFTER=/another/checkout, default this one] [PROFILE=dir] node bench/gateway-cpu.mjs [calls per round=2000] [rounds=6]
// PROFILE=dir runs every mcpkit serve under --cpu-prof (written to dir/<build>-<path>/ at exit);
// bench/profile-top.mjs prints a profile's top frames by self time (FROM=0.3: after the start-up).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpFetch, treeCpu } from './http-clients.mjs';
import { everythingServer as everything, writeEchoConfig } from './echo-view.mjs';

const root = new URL('..', import.meta.url).pathname;
const N = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 6);
const PROFILE = process.env.PROFILE;
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-cpu-'));
const configFile = writeEchoConfig(dir);
const env = { ...process.env, MCPKIT_LOG_LEVEL: 'error' };
delete env.NODE_EXTRA_CA_CERTS;
const builds = { ...(process.env.BASE ? { before: join(process.env.BASE, 'bin/run.js') } : {}), after: join(process.env.AFTER ?? root, 'bin/run.js') };
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } };

/** node's arguments for one mcpkit serve: under --cpu-prof when PROFILE asks. */
function nodeArgs(build, path, bin, args) {
  if (!PROFILE) return [bin, ...args];
  const out = join(PROFILE, `${build}-${path}`);
  mkdirSync(out, { recursive: true });
  return ['--cpu-prof', '--cpu-prof-dir', out, bin, ...args];
}

async function stdioServer(args, clientOptions = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' }, clientOptions);
  await client.connect(transport);
  return { client, pid: transport.pid, stop: () => client.close() };
}

async function httpServer(args, era) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  for (let i = 0; i < 400 && !/listening on (\S+)\/mcp/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
  const url = /listening on (\S+)\/mcp/.exec(err)?.[1];
  if (!url) throw new Error(`serve --http did not start: ${err}`);
  const client = new Client({ name: 'bench', version: '1' }, era === 'modern' ? MODERN : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/view/one/mcp`), { fetch: httpFetch }));
  const exited = new Promise((r) => child.once('exit', r));
  return {
    client,
    pid: child.pid,
    stop: async () => {
      await client.close();
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The rows: [path, build, start]; the upstream alone and the passthrough run once, whatever the builds. */
const rows = [
  ['server-everything alone (direct stdio)', '', () => stdioServer([everything, 'stdio'])],
  ['SDK passthrough, stdio → stdio', '', () => stdioServer([join(root, 'bench/fixtures/sdk-passthrough.mjs'), '--', process.execPath, everything, 'stdio'])],
];
for (const [build, bin] of Object.entries(builds)) {
  rows.push(
    ['mcpkit serve, stdio', build, () => stdioServer(nodeArgs(build, 'stdio', bin, ['serve', '--view', 'one', '--config', configFile]))],
    [
      'mcpkit serve --http, 2025 session',
      build,
      () => httpServer(nodeArgs(build, 'http-2025', bin, ['serve', '--http', '--port', '0', '--eager', '--config', configFile]), 'legacy'),
    ],
    [
      'mcpkit serve --http, 2026-07-28',
      build,
      () => httpServer(nodeArgs(build, 'http-2026', bin, ['serve', '--http', '--port', '0', '--eager', '--config', configFile]), 'modern'),
    ],
  );
}
const servers = [];
for (const [path, build, start] of rows) servers.push({ path, build, ...(await start()), runs: [] });

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (let round = 0; round < ROUNDS; round++) {
  // The order turns each round, so no server always follows the same one.
  const order = [...servers.slice(round % servers.length), ...servers.slice(0, round % servers.length)];
  for (const server of order) {
    const c0 = treeCpu(server.pid);
    const latencies = [];
    const t0 = performance.now();
    for (let i = 0; i < N; i++) {
      const s = performance.now();
      const result = await server.client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
      latencies.push(performance.now() - s);
      if (result.isError) throw new Error(`${server.path} ${server.build}: a call failed: ${JSON.stringify(result)}`);
    }
    const wall = performance.now() - t0;
    const cpu = treeCpu(server.pid) - c0;
    if (round > 0) server.runs.push({ p50: med(latencies), rps: N / (wall / 1000), cpu: (cpu * 1e6) / N });
  }
}
for (const server of servers) await server.stop();
rmSync(dir, { recursive: true, force: true });

const upstream = med(servers[0].runs.map((r) => r.cpu));
const passthrough = med(servers[1].runs.map((r) => r.cpu)) - upstream;
console.log(`gateway CPU per call: SDK client → echo, ${N} calls x ${ROUNDS - 1} rounds after a warm-up round, interleaved, medians (node ${process.version})`);
console.log(`server-everything alone: ${upstream.toFixed(0)} µs per call, taken off every row below but its own`);
console.log('| path | build | p50 ms | calls/s | gateway CPU µs/call | vs SDK passthrough |');
console.log('|---|---|---|---|---|---|');
for (const [i, server] of servers.entries()) {
  const cpu = med(server.runs.map((r) => r.cpu)) - (i === 0 ? 0 : upstream);
  const ratio = i === 0 ? '' : (cpu / passthrough).toFixed(2);
  console.log(
    `| ${server.path} | ${server.build} | ${med(server.runs.map((r) => r.p50)).toFixed(3)} | ${med(server.runs.map((r) => r.rps)).toFixed(0)} | ${cpu.toFixed(0)} | ${ratio} |`,
  );
}
process.exit(0);
