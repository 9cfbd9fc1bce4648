#!/usr/bin/env node
// From spawn to the first tools/list answer, in one run, rounds interleaved: a client (the SDK's)
// starts the server it talks to, connects (initialize), and lists the tools. Three ways to reach
// server-everything over stdio: directly, through the bare SDK passthrough
// (bench/fixtures/sdk-passthrough.mjs, which starts its upstream at once), and through
// `mcpkit serve`. Prints the median of each column over ROUNDS rounds, and `node -e 0` for scale.
// Usage: node bench/first-list.mjs [rounds=7]   (needs "npm run build" first)
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROUNDS = Number(process.argv[2] ?? 7);
const root = new URL('..', import.meta.url).pathname;
const everything = [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-first-'));
const config = join(dir, 'mcpkit.yaml');
writeFileSync(
  config,
  JSON.stringify({ mcp_servers: { everything: { command: process.execPath, args: everything } }, tool_views: { one: { servers: ['everything'] } } }),
);
const env = { ...process.env, MCPKIT_LOG_LEVEL: 'error' };

const ways = {
  direct: [process.execPath, everything],
  'sdk passthrough': [process.execPath, [join(root, 'bench/fixtures/sdk-passthrough.mjs'), '--', process.execPath, ...everything]],
  'mcpkit serve': [process.execPath, [join(root, 'bin/run.js'), 'serve', '--config', config, '--view', 'one']],
};

async function once([command, args]) {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'ignore' }));
  const initialized = performance.now();
  const { tools } = await client.listTools();
  const listed = performance.now();
  await client.close();
  if (tools.length < 5) throw new Error(`only ${tools.length} tools`);
  return { initialize: initialized - started, list: listed - initialized, total: listed - started };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
const nodeStart = [];
for (let round = 0; round <= ROUNDS; round++) {
  const t = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  if (round > 0) nodeStart.push(performance.now() - t);
  for (const [name, way] of Object.entries(ways)) {
    const r = await once(way);
    if (round > 0) results[name].push(r); // round 0 warms the disk cache
  }
}
rmSync(dir, { recursive: true, force: true });
const ms = (x) => `${Math.round(x)} ms`;
console.log(`node -e 0: ${ms(median(nodeStart))} (median of ${ROUNDS})\n`);
console.log('| way | spawn -> initialize answered | first tools/list | spawn -> first list |');
console.log('|---|---|---|---|');
for (const [name, rs] of Object.entries(results)) {
  console.log(`| ${name} | ${ms(median(rs.map((r) => r.initialize)))} | ${ms(median(rs.map((r) => r.list)))} | ${ms(median(rs.map((r) => r.total)))} |`);
}
