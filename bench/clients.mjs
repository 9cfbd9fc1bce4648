#!/usr/bin/env node
// What named clients (serve.clients) cost a call, in one run: three serve --http side by side, the
// same view of server-everything, each with 8 light keep-alive node:http clients calling echo on
// the hot path, measured in turns (round 0 is warm-up): no credential at all, serve.token, and two
// clients with tool rules, a rate and max_concurrent (set so high that they never refuse: their cost,
// not their refusals). Usage: node bench/clients.mjs [ROOT] [variants]  (needs "npm run build"; ROOT:
// another checkout, built, to compare with; variants: none,token,clients). N: calls per round.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
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
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
function cpu(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
async function raw(url, auth) {
  const u = new URL(url);
  let session;
  let id = 1;
  const post = (body) =>
    new Promise((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = http.request(
        {
          hostname: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': Buffer.byteLength(text),
            ...(auth ? { authorization: 'Bearer bench-alice' } : {}),
            ...(session ? { 'mcp-session-id': session } : {}),
          },
        },
        (res) => {
          let d = '';
          res.on('data', (c) => (d += c));
          res.on('end', () => {
            session ??= res.headers['mcp-session-id'];
            resolve(d);
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  await post({
    jsonrpc: '2.0',
    id: id++,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'r', version: '1' } },
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await post({ jsonrpc: '2.0', id: id++, method: 'tools/list', params: {} });
  return () => post({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' } } });
}
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
  const clients = await Promise.all(Array.from({ length: 8 }, () => raw(`${base}/view/one/mcp`, name !== 'none')));
  servers[name] = { child, clients, rows: [] };
}
const N = Number(process.env.N ?? 4000);
for (let round = 0; round < 5; round++)
  for (const name of only) {
    const { child, clients, rows } = servers[name];
    const c0 = cpu(child.pid);
    const t0 = performance.now();
    let left = N;
    await Promise.all(
      clients.map(async (call) => {
        while (left-- > 0) await call();
      }),
    );
    const t = performance.now() - t0;
    const c = cpu(child.pid) - c0;
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
