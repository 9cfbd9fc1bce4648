#!/usr/bin/env node
// A gateway many clients share, measured in one run: what each client costs, and how start-up and calls scale. Prints a table:
//   1. start-up to the first tools/list through serve --http with 1, 10 and 50 stdio upstreams of
//      20 tools each (bench/fixtures/twenty-tools-server.mjs, no SDK, so 50 of them fit);
//   2. memory (RSS of serve and every process under it) per 2025-11-25 session that shares the
//      common connections, per 2025 session with connections of its own (it declares roots), and
//      per 2026-07-28 client;
//   3. calls/s and p50/p99 latency of tools/call at 1, 8, 32 and 128 concurrent 2025 clients;
//   4. with serve.store (bench/store.mjs, when redis-server is installed): a limited call with and
//      without the store at 1, 8 and 32 clients, and two replicas sharing it, behind nginx too.
// Usage: node bench/scale.mjs [calls per level=2000]   (needs "npm run build" first)
// MCPKIT_BIN=/path/to/bin/run.js measures another build (an older checkout) with the same clients.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CALLS = Number(process.argv[2] ?? 2000);
const root = new URL('..', import.meta.url).pathname;
const bin = process.env.MCPKIT_BIN ?? join(root, 'bin/run.js');
const fixture = join(root, 'bench/fixtures/twenty-tools-server.mjs');
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-scale-'));
const ERA = { legacy: {}, modern: { versionNegotiation: { mode: { pin: '2026-07-28' } } } };

function config(servers, extra = {}) {
  const file = join(dir, `scale-${servers}-${Math.random().toString(36).slice(2)}.yaml`);
  const mcp_servers = Object.fromEntries(
    Array.from({ length: servers }, (_, i) => [`s${i}`, { command: process.execPath, args: [fixture, `s${i}`], protocol: '2025-11-25' }]),
  );
  writeFileSync(file, JSON.stringify({ mcp_servers, ...extra }));
  return file;
}

async function startServe(file) {
  const child = spawn(process.execPath, [bin, 'serve', '--http', '--port', '0', '--config', file, '--exposure', 'direct'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const started = performance.now();
  for (let i = 0; i < 300 && !/listening on (http:\/\/\S+)\/mcp/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
  const url = /listening on (http:\/\/\S+)\/mcp/.exec(err)?.[1];
  if (!url) throw new Error(`serve did not start: ${err}`);
  return { child, url, started };
}

async function stop(child) {
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
}

/** RSS in KiB of a process and everything under it (Linux /proc). */
function treeRss(pid) {
  const children = new Map();
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(p)]);
    } catch {
      /* gone */
    }
  }
  let total = 0;
  const walk = (p) => {
    try {
      total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* gone */
    }
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return total;
}

async function connect(url, era = 'legacy', capabilities = {}) {
  const client = new Client({ name: 'scale', version: '1' }, { capabilities, ...ERA[era] });
  if (capabilities.roots) client.setRequestHandler('roots/list', async () => ({ roots: [] }));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

const ms = (n) => n.toFixed(1);
const rows = [];

// 1. Start-up to the first tools/list.
for (const servers of [1, 10, 50]) {
  const { child, url, started } = await startServe(config(servers));
  const client = await connect(url);
  const { tools } = await client.listTools();
  const elapsed = performance.now() - started;
  const rss = treeRss(child.pid);
  await client.close();
  await stop(child);
  rows.push([`start-up to first tools/list, ${servers} stdio upstream(s)`, `${ms(elapsed)} ms`, `${tools.length} tools, ${Math.round(rss / 1024)} MiB in all`]);
}

// 2. Memory per client.
{
  const { child, url } = await startServe(config(1, { serve: { max_client_hubs: 1000 } }));
  const warm = await connect(url);
  await warm.listTools();
  const per = async (label, make, n) => {
    await new Promise((r) => setTimeout(r, 300));
    const before = treeRss(child.pid);
    const clients = [];
    for (let i = 0; i < n; i++) {
      const c = await make();
      await c.listTools();
      await c.callTool({ name: 's0__tool_0', arguments: { message: 'm' } });
      clients.push(c);
    }
    await new Promise((r) => setTimeout(r, 300));
    const after = treeRss(child.pid);
    rows.push([`memory per ${label} (${n} of them)`, `${((after - before) / n).toFixed(0)} KiB`, '']);
    return clients;
  };
  const keep = [
    ...(await per('2025 session sharing the common connections', () => connect(url), 50)),
    ...(await per('2025 session with connections of its own (roots)', () => connect(url, 'legacy', { roots: {} }), 10)),
    ...(await per('2026-07-28 client', () => connect(url, 'modern'), 50)),
  ];
  await Promise.allSettled([warm, ...keep].map((c) => c.close()));
  await stop(child);
}

// 3. Calls/s and latency at 1, 8, 32 and 128 concurrent clients.
{
  const { child, url } = await startServe(config(1));
  for (const concurrency of [1, 8, 32, 128]) {
    const clients = await Promise.all(Array.from({ length: concurrency }, () => connect(url)));
    await Promise.all(clients.map((c) => c.callTool({ name: 's0__tool_0', arguments: { message: 'warm' } })));
    const latencies = [];
    let left = CALLS;
    const started = performance.now();
    await Promise.all(
      clients.map(async (c) => {
        while (left-- > 0) {
          const t = performance.now();
          await c.callTool({ name: 's0__tool_0', arguments: { message: 'x' } });
          latencies.push(performance.now() - t);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
    rows.push([
      `tools/call, ${concurrency} concurrent client(s)`,
      `${Math.round(latencies.length / seconds)} calls/s`,
      `p50 ${ms(at(0.5))} ms, p99 ${ms(at(0.99))} ms`,
    ]);
    await Promise.allSettled(clients.map((c) => c.close()));
  }
  await stop(child);
}

rmSync(dir, { recursive: true, force: true });
const width = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length)));
console.log(`mcpkit: ${bin}`);
for (const r of rows) console.log(`| ${r.map((c, i) => c.padEnd(width[i])).join(' | ')} |`);

// 4. With serve.store (replicas sharing their limits and tasks in redis-server): bench/store.mjs,
// one run, interleaved: a limited call with its limits in the process and in the store at 1, 8
// and 32 clients, and two replicas sharing the store, split by hand and behind nginx.
const { spawnSync } = await import('node:child_process');
const { existsSync } = await import('node:fs');
if (['/usr/bin/redis-server', '/usr/sbin/redis-server'].some((p) => existsSync(p)) && !process.env.MCPKIT_BIN) {
  console.log('');
  spawnSync(process.execPath, [join(root, 'bench/store.mjs')], { stdio: 'inherit', env: { ...process.env, N: String(CALLS) } });
} else console.log('\n(serve.store rows: redis-server is not installed, or MCPKIT_BIN names another build)');
