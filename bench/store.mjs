#!/usr/bin/env node
// What serve.store (limits kept in Redis) costs a limited call, in one run: serve --http with a
// named client whose rate and max_concurrent never refuse (their cost, not their refusals), its
// limits kept in the process or in a real redis-server on loopback, side by side, in turns
// (round 0 is warm-up). Rows: p50 of one call at a time, and calls/s at 1, 8 and 32 light
// keep-alive clients on the hot path; then two replicas sharing the store, the clients split
// between them as a round-robin balancer would, and the same behind nginx (docs/deploy/nginx-store.conf
// as written, its ports replaced) when nginx is installed; then what signing (serve.store.key)
// costs a message and a record (bench/store-signing.mjs). Needs "npm run build" and redis-server.
// Usage: node bench/store.mjs   (N: calls per round, default 3000)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, rawHttpClient } from './http-clients.mjs';

const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
const dir = mkdtempSync(join(tmpdir(), 'store-bench-'));
const N = Number(process.env.N ?? 3000);
const redisBin = ['/usr/bin/redis-server', '/usr/sbin/redis-server'].find((p) => spawnSync('test', ['-x', p]).status === 0);
if (!redisBin) {
  console.error('redis-server is not installed (apt-get install redis-server)');
  process.exit(2);
}
const freePort = () =>
  new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
const children = [];
const port = await freePort();
children.push(spawn(redisBin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' }));
await new Promise((r) => setTimeout(r, 300));

const ev = { command: process.execPath, args: [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] };
const config = (store) => ({
  mcp_servers: { everything: ev },
  tool_views: { one: { servers: ['everything'] } },
  serve: {
    clients: { alice: { token: 'bench-alice', rate: '1000000/s', max_concurrent: 100000 } },
    ...(store ? { store: { url: `redis://127.0.0.1:${port}`, key: 'bench-store-key-0123456789abcdefghijklmnopq' } } : {}),
  },
});

async function serve(name, store) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, JSON.stringify(config(store)));
  const child = spawn(process.execPath, [bin, 'serve', '--http', '--port', '0', '--config', file, '--eager'], {
    env: { ...process.env, MCPKIT_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  for (let i = 0; i < 200 && !/listening on (\S+)\/mcp/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
  return { child, base: /listening on (\S+)\/mcp/.exec(err)[1] };
}
const connect = async (base) => {
  const client = await rawHttpClient(`${base}/view/one/mcp`, { authorization: 'Bearer bench-alice' });
  return () => client.callTool({ name: 'echo', arguments: { message: 'x' } });
};

try {
  const local = await serve('local', false);
  const shared = await serve('shared', true);
  const second = await serve('second', true);
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  // p50 of one call at a time.
  const one = { local: await connect(local.base), shared: await connect(shared.base) };
  const lat = { local: [], shared: [] };
  for (let round = 0; round < 5; round++)
    for (const name of ['local', 'shared']) {
      for (let i = 0; i < 1000; i++) {
        const t = performance.now();
        await one[name]();
        if (round > 0) lat[name].push(performance.now() - t);
      }
    }
  console.log(`# serve.store: a limited call (rate and max_concurrent that never refuse), limits in the process or in redis-server ${port} on loopback`);
  console.log('\n| one call at a time | p50 ms | p99 ms |');
  console.log('|---|---|---|');
  for (const name of ['local', 'shared']) {
    const xs = [...lat[name]].sort((a, b) => a - b);
    console.log(`| limits ${name === 'local' ? 'in the process' : 'in the store'} | ${med(xs).toFixed(3)} | ${xs[Math.floor(xs.length * 0.99)].toFixed(3)} |`);
  }
  console.log(`| added by the store | ${(med(lat.shared) - med(lat.local)).toFixed(3)} | |`);

  console.log(
    `\n| light keep-alive clients, ${N} calls x 4 rounds (median) | in the process calls/s | in the store calls/s | ratio | CPU ms/call (process / store) |`,
  );
  console.log('|---|---|---|---|---|');
  for (const count of [1, 8, 32]) {
    const sets = {
      local: await Promise.all(Array.from({ length: count }, () => connect(local.base))),
      shared: await Promise.all(Array.from({ length: count }, () => connect(shared.base))),
    };
    const rows = { local: [], shared: [] };
    for (let round = 0; round < 5; round++)
      for (const name of ['local', 'shared']) {
        const pid = (name === 'local' ? local : shared).child.pid;
        const c0 = cpuSeconds(pid);
        const t0 = performance.now();
        let left = N;
        await Promise.all(
          sets[name].map(async (call) => {
            while (left-- > 0) await call();
          }),
        );
        const t = performance.now() - t0;
        if (round > 0) rows[name].push({ rps: N / (t / 1000), cpu: ((cpuSeconds(pid) - c0) * 1000) / N });
      }
    const a = med(rows.local.map((r) => r.rps));
    const b = med(rows.shared.map((r) => r.rps));
    console.log(
      `| ${count} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${(b / a).toFixed(2)} | ${med(rows.local.map((r) => r.cpu)).toFixed(3)} / ${med(rows.shared.map((r) => r.cpu)).toFixed(3)} |`,
    );
  }

  console.log(`\n| two replicas sharing the store | calls/s (median of 4) |`);
  console.log('|---|---|');
  // Behind nginx: the documented file, its ports replaced by the replicas' and a free one.
  const nginx = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
  let front;
  if (nginx) {
    const port = (base) => new URL(base).port;
    const listen = await freePort();
    const conf = readFileSync(join(root, 'docs/deploy/nginx-store.conf'), 'utf8')
      .replaceAll('127.0.0.1:8800', `127.0.0.1:${listen}`)
      .replaceAll('127.0.0.1:8801', `127.0.0.1:${port(shared.base)}`)
      .replaceAll('127.0.0.1:8802', `127.0.0.1:${port(second.base)}`)
      .replace(
        'http {',
        `http {\n    client_body_temp_path ${dir}/body;\n    proxy_temp_path ${dir}/proxy;\n    fastcgi_temp_path ${dir}/fastcgi;\n    uwsgi_temp_path ${dir}/uwsgi;\n    scgi_temp_path ${dir}/scgi;`,
      );
    mkdirSync(join(dir, 'logs'), { recursive: true });
    writeFileSync(join(dir, 'nginx.conf'), conf);
    children.push(
      spawn(nginx, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; pid ${dir}/nginx.pid; error_log ${dir}/logs/error.log;`], { stdio: 'ignore' }),
    );
    await new Promise((r) => setTimeout(r, 500));
    front = `http://127.0.0.1:${listen}`;
  }
  const ways = [
    ['clients split between the replicas', (i) => (i % 2 ? second : shared).base],
    ...(front ? [['behind nginx (nginx-store.conf)', () => front]] : []),
  ];
  for (const [way, baseOf] of ways)
    for (const count of [8, 32]) {
      const calls = await Promise.all(Array.from({ length: count }, (_, i) => connect(baseOf(i))));
      const rates = [];
      for (let round = 0; round < 5; round++) {
        const t0 = performance.now();
        let left = N;
        await Promise.all(
          calls.map(async (call) => {
            while (left-- > 0) await call();
          }),
        );
        if (round > 0) rates.push(N / ((performance.now() - t0) / 1000));
      }
      console.log(`| ${count} clients, ${way} | ${med(rates).toFixed(0)} |`);
    }
  spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench/store-signing.mjs')], { stdio: 'inherit', cwd: root });
} finally {
  for (const child of children) child.kill();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
