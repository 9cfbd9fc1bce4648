#!/usr/bin/env node
// What running a stdio server in a box costs (bubblewrap), against the same server run as it is
// and in a pid namespace of its own (what mcpkit does for every unboxed server where bubblewrap
// works): start-up to the first tools/list through `mcpkit serve`, and per-call latency of
// server-everything's echo, rounds interleaved so that the machine's drift falls on all alike.
// Usage: node bench/sandbox.mjs [calls=2000] [rounds=3]   (needs "npm run build" first)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const calls = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 3);
const root = new URL('..', import.meta.url).pathname;
const everything = { command: process.execPath, args: [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] };
const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-bench-sandbox-'));
const env = { ...process.env, XDG_CONFIG_HOME: scratch, XDG_CACHE_HOME: scratch, NO_COLOR: '1' };

const variants = {
  // A PATH without bubblewrap: the server runs as it is (setsid, no namespace).
  'as it is (no bwrap on the PATH)': { entry: everything, path: '/nowhere' },
  'pid namespace (unboxed, bwrap found)': { entry: everything },
  'in a box (sandbox: true)': { entry: { ...everything, sandbox: true } },
};

async function measure(name, { entry, path }) {
  const config = join(scratch, `${name.replace(/\W+/g, '-')}.yaml`);
  writeFileSync(config, JSON.stringify({ mcp_servers: { e: entry } }));
  const started = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(root, 'bin/run.js'), 'serve', '--config', config, '--exposure', 'direct'],
    env: { ...env, ...(path ? { PATH: `${path}:${join(process.execPath, '..')}`.replace(/:\/usr\/bin$/, '') } : {}) },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  await client.listTools();
  const startMs = performance.now() - started;
  for (let i = 0; i < 200; i++) await client.callTool({ name: 'e__echo', arguments: { message: 'warm' } });
  const times = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await client.callTool({ name: 'e__echo', arguments: { message: 'x' } });
    times.push(performance.now() - t);
  }
  await client.close();
  times.sort((a, b) => a - b);
  return { startMs, p50: times[Math.floor(times.length / 2)], p99: times[Math.floor(times.length * 0.99)] };
}

const results = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  const order = Object.keys(variants);
  for (let i = 0; i < r % order.length; i++) order.push(order.shift());
  for (const name of order) results[name].push(await measure(name, variants[name]));
}
rmSync(scratch, { recursive: true, force: true });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`| variant | start to first tools/list, ms | echo p50, ms | echo p99, ms |`);
console.log(`|---|---|---|---|`);
for (const [name, runs] of Object.entries(results)) {
  console.log(
    `| ${name} | ${median(runs.map((x) => x.startMs)).toFixed(0)} | ${median(runs.map((x) => x.p50)).toFixed(3)} | ${median(runs.map((x) => x.p99)).toFixed(3)} |`,
  );
}
