#!/usr/bin/env node
// What conditions on arguments (issue 69) cost a call, in one run: two serve --http side by side,
// the same view of server-everything, one without conditions and one with two on echo (the
// view's and the client's), each with 8 light keep-alive node:http clients calling echo on the
// hot path, measured in interleaved turns (round 0 is warm-up): throughput, p50 latency and CPU
// per call. Then the conditions alone, in this process: p50 of one evaluation. Usage:
// node --import tsx bench/conditions.mjs (needs "npm run build"). N: calls per round.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, rawHttpClient } from './http-clients.mjs';
import { ConditionSet, firstRefusal } from '../src/conditions/rules.ts';

const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
const dir = mkdtempSync(join(tmpdir(), 'cond-'));
const ev = { command: process.execPath, args: [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] };
const viewCondition = { echo: 'size(args.message) <= 100' };
const clientCondition = { '*echo*': { when: 'args.message in ["x", "y"]', message: 'x or y.' } };
const variants = {
  none: { mcp_servers: { everything: ev }, tool_views: { one: { servers: ['everything'] } }, serve: { clients: { alice: { token: 'bench-alice' } } } },
  two: {
    mcp_servers: { everything: ev },
    tool_views: { one: { servers: ['everything'], conditions: viewCondition } },
    serve: { clients: { alice: { token: 'bench-alice', conditions: clientCondition } } },
  },
};
const servers = {};
for (const [name, config] of Object.entries(variants)) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, [bin, 'serve', '--http', '--port', '0', '--config', file, '--eager'], {
    env: { ...process.env, MCPKIT_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  for (let i = 0; i < 400 && !/listening on (\S+)\/mcp/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
  const base = /listening on (\S+)\/mcp/.exec(err)[1];
  const clients = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const client = await rawHttpClient(`${base}/view/one/mcp`, { authorization: 'Bearer bench-alice' });
      return () => client.callTool({ name: 'echo', arguments: { message: 'x' } });
    }),
  );
  servers[name] = { child, clients, rows: [] };
}
const N = Number(process.env.N ?? 4000);
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (let round = 0; round < 5; round++)
  for (const name of Object.keys(variants)) {
    const { child, clients, rows } = servers[name];
    const c0 = cpuSeconds(child.pid);
    const t0 = performance.now();
    const latencies = [];
    let left = N;
    await Promise.all(
      clients.map(async (call) => {
        while (left-- > 0) {
          const s = performance.now();
          const result = await call();
          latencies.push(performance.now() - s);
          if (JSON.stringify(result).includes('isError')) throw new Error(`${name}: a call was refused: ${JSON.stringify(result)}`);
        }
      }),
    );
    const t = performance.now() - t0;
    const c = cpuSeconds(child.pid) - c0;
    if (round > 0) rows.push({ rps: N / (t / 1000), p50: med(latencies), cpu: (c * 1000) / N });
  }
console.log(`| serve --http, 8 light clients, echo on the hot path, ${N} calls x 4 rounds interleaved (median) | calls/s | p50 ms | CPU ms/call |`);
console.log('|---|---|---|---|');
for (const name of Object.keys(variants)) {
  const r = servers[name].rows;
  const label = name === 'none' ? 'no conditions' : "two conditions (the view's and the client's)";
  console.log(`| ${label} | ${med(r.map((x) => x.rps)).toFixed(0)} | ${med(r.map((x) => x.p50)).toFixed(3)} | ${med(r.map((x) => x.cpu)).toFixed(3)} |`);
  servers[name].child.kill();
}
rmSync(dir, { recursive: true, force: true });

// The conditions alone: what each adds to a call, p50 over 20,000 evaluations.
const sets = [ConditionSet.compile('tool_views.one.conditions', viewCondition), ConditionSet.compile('serve.clients.alice.conditions', clientCondition)];
const vars = { args: { message: 'x' }, tool: 'echo', server: 'everything', view: 'one', client: 'alice', claims: {} };
const each = (rules) => {
  const times = [];
  for (let i = 0; i < 20_000; i++) {
    const s = performance.now();
    if (firstRefusal(rules, vars)) throw new Error('refused');
    times.push(performance.now() - s);
  }
  return med(times) * 1000;
};
const rules = [...sets[0].applying('echo'), ...sets[1].applying('echo')];
each(rules); // warm
console.log(`\n| in process, p50 of 20,000 | µs |\n|---|---|`);
console.log(`| a tool no condition names (one look-up per set) | ${each([...sets[0].applying('other'), ...sets[1].applying('other')]).toFixed(2)} |`);
console.log(`| one condition | ${each(rules.slice(0, 1)).toFixed(2)} |`);
console.log(`| two conditions | ${each(rules).toFixed(2)} |`);
process.exit(0);
