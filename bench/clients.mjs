#!/usr/bin/env node
// What named clients (serve.clients) cost a call, in one run: three serve --http side by side, the
// same view of server-everything, each with 8 light keep-alive node:http clients calling echo on
// the hot path, measured in turns (round 0 is warm-up): no credential at all, serve.token, and two
// clients with tool rules, a rate and max_concurrent (set so high that they never refuse: their cost,
// not their refusals). Usage: node bench/clients.mjs [ROOT] [variants]  (needs "npm run build"; ROOT:
// another checkout, built, to compare with; variants: none,token,clients). N: calls per round.
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { cpuSeconds, rawHttpClient } from './http-clients.mjs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
const dir = mkdtempSync(join(tmpdir(), 'cb-'));
const ev = { command: process.execPath, args: [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] };
const variants = {
  none: { mcp_servers: { everything: ev }, tool_views: { one: { servers: ['everything'] } } },
  token: { mcp_servers: { everything: ev }, tool_views: { one: { servers: ['everything'] } }, serve: { token: 'bench-alice' } },
  clients: {
    mcp_servers: { everything: ev },
    tool_views: { one: { servers: ['everything'] } },
    serve: {
      clients: {
        alice: { token: 'bench-alice', tools: ['+ *echo*', '+ get-*', '- *'], rate: '1000000/s', max_concurrent: 64 },
        bob: { token: 'bench-bob', read_only: true },
      },
    },
  },
};
const only = (process.argv[3] ?? 'none,token,clients').split(',');
const servers = {};
for (const name of only) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, JSON.stringify(variants[name]));
  const child = spawn(process.execPath, [bin, 'serve', '--http', '--port', '0', '--config', file, '--eager'], {
    env: { ...process.env, MCPKIT_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  for (let i = 0; i < 200 && !/listening on (\S+)\/mcp/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
  const base = /listening on (\S+)\/mcp/.exec(err)[1];
  const clients = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const client = await rawHttpClient(`${base}/view/one/mcp`, name !== 'none' ? { authorization: 'Bearer bench-alice' } : {});
      return () => client.callTool({ name: 'echo', arguments: { message: 'x' } });
    }),
  );
  servers[name] = { child, clients, rows: [] };
}
const N = Number(process.env.N ?? 4000);
for (let round = 0; round < 5; round++)
  for (const name of only) {
    const { child, clients, rows } = servers[name];
    const c0 = cpuSeconds(child.pid);
    const t0 = performance.now();
    let left = N;
    await Promise.all(
      clients.map(async (call) => {
        while (left-- > 0) await call();
      }),
    );
    const t = performance.now() - t0;
    const c = cpuSeconds(child.pid) - c0;
    if (round > 0) rows.push({ rps: N / (t / 1000), cpu: (c * 1000) / N });
  }
const med = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`| serve --http, 8 light clients, ${N} calls x 4 rounds (median) | calls/s | CPU ms/call |`);
console.log('|---|---|---|');
for (const name of only) {
  const r = servers[name].rows;
  console.log(`| ${name} | ${med(r.map((x) => x.rps)).toFixed(0)} | ${med(r.map((x) => x.cpu)).toFixed(3)} |`);
  servers[name].child.kill();
}
rmSync(dir, { recursive: true, force: true });
process.exit(0);
