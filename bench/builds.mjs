#!/usr/bin/env node
// Two builds of mcpkit side by side, in one run: this checkout's and another's (BASE=/path/to/a
// checkout with its own `npm run build`), the same config without conditions, a view of
// server-everything, `echo` on the hot path. Rows: serve over stdio with one SDK client calling
// in sequence, and serve --http with 8 light keep-alive clients. Measured in interleaved turns
// (round 0 is warm-up, the table shows medians of the rest), so load on the machine falls on both
// builds alike: p50, calls/s and serve's CPU per call (its process tree's utime + stime, less
// nothing: both builds run the same upstream).
// Usage: BASE=/work/old [AFTER=/other/checkout] node bench/builds.mjs [calls per round=2000] [rounds=5]
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, rawHttpClient } from './http-clients.mjs';

const root = new URL('..', import.meta.url).pathname;
const base = process.env.BASE;
if (!base) {
  console.error('Set BASE to the root of the checkout to compare against (built with npm run build).');
  process.exit(2);
}
const N = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-builds-'));
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const configFile = join(dir, 'mcpkit.yaml');
writeFileSync(
  configFile,
  JSON.stringify({ mcp_servers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, tool_views: { one: { servers: ['everything'] } } }),
);
const env = { ...process.env, MCPKIT_LOG_LEVEL: 'error' };
delete env.NODE_EXTRA_CA_CERTS;
// AFTER: another checkout to stand for "after" (default: this one).
const builds = { before: join(base, 'bin/run.js'), after: join(process.env.AFTER ?? root, 'bin/run.js') };

/** CPU seconds of a process and every descendant still alive (serve and its upstream). */
function treeCpu(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended between the listing and the read: it has no children left to count
    }
  }
  let total = 0;
  const walk = (p) => {
    total += cpuSeconds(p) || 0;
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return total;
}

async function startHttp(bin) {
  const child = spawn(process.execPath, [bin, 'serve', '--http', '--port', '0', '--config', configFile, '--eager'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  for (let i = 0; i < 400 && !/listening on (\S+)\/mcp/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
  const url = /listening on (\S+)\/mcp/.exec(err)?.[1];
  if (!url) throw new Error(`serve --http of ${bin} did not start: ${err}`);
  const clients = await Promise.all(Array.from({ length: 8 }, () => rawHttpClient(`${url}/view/one/mcp`)));
  return { pid: child.pid, stop: () => child.kill(), calls: clients.map((c) => () => c.callTool({ name: 'echo', arguments: { message: 'x' } })) };
}

async function startStdio(bin) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'serve', '--view', 'one', '--config', configFile],
    env,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return { pid: transport.pid, stop: () => client.close(), calls: [() => client.callTool({ name: 'echo', arguments: { message: 'x' } })] };
}

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const [kind, start] of [
  ['stdio, 1 SDK client', startStdio],
  ['http, 8 light clients', startHttp],
]) {
  const servers = {};
  for (const [name, bin] of Object.entries(builds)) servers[name] = { ...(await start(bin)), runs: [] };
  for (let round = 0; round < ROUNDS; round++)
    for (const name of Object.keys(builds)) {
      const server = servers[name];
      const c0 = treeCpu(server.pid);
      const t0 = performance.now();
      const latencies = [];
      let left = N;
      await Promise.all(
        server.calls.map(async (call) => {
          while (left-- > 0) {
            const s = performance.now();
            const result = await call();
            latencies.push(performance.now() - s);
            if (result.isError) throw new Error(`${name}: a call failed: ${JSON.stringify(result)}`);
          }
        }),
      );
      const t = performance.now() - t0;
      const cpu = treeCpu(server.pid) - c0;
      if (round > 0) server.runs.push({ rps: N / (t / 1000), p50: med(latencies), cpu: (cpu * 1e6) / N });
    }
  for (const [name, server] of Object.entries(servers)) {
    await server.stop();
    const r = server.runs;
    rows.push(
      `| ${kind} | ${name} | ${med(r.map((x) => x.p50)).toFixed(3)} | ${med(r.map((x) => x.rps)).toFixed(0)} | ${med(r.map((x) => x.cpu)).toFixed(0)} |`,
    );
  }
}
console.log(`| path (${N} calls x ${ROUNDS - 1} rounds, interleaved, medians) | build | p50 ms | calls/s | serve tree CPU µs/call |`);
console.log('|---|---|---|---|---|');
for (const row of rows) console.log(row);
rmSync(dir, { recursive: true, force: true });
