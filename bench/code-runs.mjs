#!/usr/bin/env node
// What one code-mode run costs serve: `mcpkit serve --view work` over stdio (a code view of
// server-everything), the SDK client calling work_run_code with a script that returns at once and
// with one that chains two calls; serve's CPU per run (its process's utime + stime from /proc,
// the upstream's excluded) and the median latency. With --against DIR, the same rows for that
// build, rounds interleaved so that the machine's drift falls on both alike.
// Usage: node bench/code-runs.mjs [runs=60] [rounds=3] [--against DIR]   (needs "npm run build" first)
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const argv = process.argv.slice(2);
const against = argv.includes('--against') ? argv.splice(argv.indexOf('--against'), 2)[1] : undefined;
const RUNS = Number(argv[0] ?? 60);
const ROUNDS = Number(argv[1] ?? 3);
const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-code-runs-'));
const config = join(dir, 'mcpkit.yaml');
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
writeFileSync(
  config,
  JSON.stringify({
    mcp_servers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
    tool_views: { work: { servers: ['everything'], exposure: 'code' } },
  }),
);
const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_CACHE_HOME: dir, MCPKIT_LOG_LEVEL: 'error' };
delete env.NODE_EXTRA_CA_CERTS;
const builds = [['this build', join(root, 'bin/run.js')], ...(against ? [[against, join(against, 'bin/run.js')]] : [])];
const scripts = {
  'return 1': 'return 1;',
  'two calls': `const sum = await tools.everything['get-sum']({ a: 2, b: 3 }); return await tools.everything.echo({ message: String(sum) });`,
};

const TICK_MS = 10; // USER_HZ 100
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function round(bin) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'serve', '--config', config, '--view', 'work'], env, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  const out = {};
  try {
    for (const [label, code] of Object.entries(scripts)) {
      // Warm-up: the engine compiled, the first thread started, the upstream connected.
      for (let i = 0; i < 3; i++) await client.callTool({ name: 'work_run_code', arguments: { code } });
      const before = cpuMs(transport.pid);
      const times = [];
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        const r = await client.callTool({ name: 'work_run_code', arguments: { code } });
        times.push(performance.now() - started);
        if (r.isError) throw new Error(`${label}: ${JSON.stringify(r).slice(0, 300)}`);
      }
      out[label] = { cpu: (cpuMs(transport.pid) - before) / RUNS, p50: [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] };
    }
  } finally {
    await client.close();
  }
  return out;
}

const rows = new Map();
try {
  for (let r = 0; r < ROUNDS; r++)
    for (const [build, bin] of builds) {
      const got = await round(bin);
      for (const [label, v] of Object.entries(got)) rows.set(`${label} | ${build}`, [...(rows.get(`${label} | ${build}`) ?? []), v]);
    }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${RUNS} runs per round, medians of ${ROUNDS} rounds; serve over stdio, a code view of server-everything\n`);
console.log('| script | build | serve CPU per run | p50 per run |');
console.log('|---|---|---|---|');
for (const [key, vs] of rows) console.log(`| ${key} | ${median(vs.map((v) => v.cpu)).toFixed(1)} ms | ${median(vs.map((v) => v.p50)).toFixed(1)} ms |`);
