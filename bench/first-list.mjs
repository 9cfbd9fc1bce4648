#!/usr/bin/env node
// From spawn to the first tools/list answer, in one run, rounds interleaved: a client (the SDK's)
// starts the server it talks to, connects (initialize), and lists the tools. Three ways to reach
// server-everything over stdio: directly, through the bare SDK passthrough
// (bench/fixtures/sdk-passthrough.mjs, which starts its upstream at once), and through
// `mcpkit serve`. Prints the median of each column over ROUNDS rounds, and `node -e 0` for scale.
// Then a started gateway (`serve --http`, listening, no request yet): a client's initialize and
// its first tools/list, right after serve says it listens and again a second later, as serve is by
// default (servers start on first use), with --eager, and with serve.list_from_lock (the approved
// lock answers while the servers start); with --against DIR, the same rows for that build too.
// Usage: node bench/first-list.mjs [rounds=7] [--against DIR]   (needs "npm run build" first)
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const against = argv.includes('--against') ? argv.splice(argv.indexOf('--against'), 2)[1] : undefined;
const ROUNDS = Number(argv[0] ?? 7);
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
const httpRows = await startedGateways();
rmSync(dir, { recursive: true, force: true });
const ms = (x) => `${Math.round(x)} ms`;
console.log(`node -e 0: ${ms(median(nodeStart))} (median of ${ROUNDS})\n`);
console.log('| way | spawn -> initialize answered | first tools/list | spawn -> first list |');
console.log('|---|---|---|---|');
for (const [name, rs] of Object.entries(results)) {
  console.log(`| ${name} | ${ms(median(rs.map((r) => r.initialize)))} | ${ms(median(rs.map((r) => r.list)))} | ${ms(median(rs.map((r) => r.total)))} |`);
}

console.log('\n| started gateway (serve --http) | build | initialize | first tools/list, at once | first tools/list, 1 s after listening |');
console.log('|---|---|---|---|---|');
for (const [label, rs] of httpRows) {
  console.log(
    `| ${label.split(' @ ')[0]} | ${label.split(' @ ')[1]} | ${ms(median(rs.map((r) => r.initialize)))} | ${ms(median(rs.map((r) => r.list)))} | ${ms(median(rs.map((r) => r.settled)))} |`,
  );
}

/** serve --http of a build, until it says it listens; its URL. */
async function listening(bin, configFile, flags) {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [bin, 'serve', '--http', '--port', '0', '--config', configFile, ...flags], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const found = /listening on (http:\/\/[^\s/]+)\/mcp/.exec(text);
      if (found) resolve(found[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${text}`)));
  });
  return { child, url };
}

async function firstList(url) {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  const initialized = performance.now();
  const { tools } = await client.listTools();
  const listed = performance.now();
  await client.close();
  if (tools.length < 5) throw new Error(`only ${tools.length} tools`);
  return { initialize: initialized - started, list: listed - initialized };
}

/** Each way of starting a gateway, in interleaved rounds: the first listing at once, and on another gateway a second later. */
async function startedGateways() {
  const plain = { mcp_servers: { everything: { command: process.execPath, args: everything } } };
  const configOf = (name, extra) => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, JSON.stringify({ ...plain, ...extra }));
    return file;
  };
  const lazy = configOf('gateway', {});
  const fromLock = configOf('gateway-lock', { serve: { list_from_lock: true } });
  const builds = [['this build', join(root, 'bin/run.js')], ...(against ? [[against, join(against, 'bin/run.js')]] : [])];
  const ways = builds.flatMap(([build, bin]) => [
    [`default (on first use) @ ${build}`, bin, lazy, []],
    [`--eager @ ${build}`, bin, lazy, ['--eager']],
    ...(build === 'this build' ? [[`serve.list_from_lock @ ${build}`, bin, fromLock, []]] : []),
  ]);
  const rows = new Map(ways.map(([label]) => [label, []]));
  const { setTimeout: sleep } = await import('node:timers/promises');
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [label, bin, configFile, flags] of ways) {
      const atOnce = await listening(bin, configFile, flags);
      const first = await firstList(atOnce.url);
      atOnce.child.kill();
      const later = await listening(bin, configFile, flags);
      await sleep(1000);
      const settled = await firstList(later.url);
      later.child.kill();
      // Round 0 pins the tools on first use (the lock list_from_lock reads) and warms the disk cache.
      if (round > 0) rows.get(label).push({ ...first, settled: settled.list });
    }
  }
  return rows;
}
