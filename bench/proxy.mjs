#!/usr/bin/env node
// Proxy cost, all measured in this one run: N sequential tools/call of `echo` after a warm-up,
// (1) direct over stdio, (2) through `mcpkit serve` over stdio, (3) through `mcpkit serve --http`
// with a keep-alive client, sequential and with 8 concurrent clients. In both protocol eras:
// 2025-11-25 clients to server-everything (1.x SDK), and 2026-07-28 clients to the 2.x SDK
// fixture test/fixtures/modern-server.mjs (mcpkit speaks 2026-07-28 to it for them).
// Also the tokens of tools/list for a 3-server view, direct vs search exposure (bytes/4).
// Usage: node bench/proxy.mjs [calls=2000] [observability]   (needs "npm run build" first)
// WARM (calls before each row, default 200), OBS_ROUNDS, OBS_N (calls per burst) and OBS_VERBOSE=1
// (every burst) tune it. A serve warmed by 200 calls still runs much of its code unoptimized: its
// CPU per call is 2-3x what it is after a few thousand (WARM=4000).
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, httpFetch, rawHttpClient } from './http-clients.mjs';

const N = Number(process.argv[2] ?? 2000);
/** `observability` as the second argument runs only the observability rows. */
const onlyObservability = process.argv[3] === 'observability';
/** Calls before each measured row (WARM=4000: a serve warmed up as it is after minutes of use). */
const WARM = Number(process.env.WARM ?? 200);
/** Rounds of the observability rows (each server measured once per round, in turns), calls per burst, and the warm-up of each server. */
const OBS_ROUNDS = Number(process.env.OBS_ROUNDS ?? 20);
const OBS_N = Number(process.env.OBS_N ?? 1000);
const OBS_WARM = 4000;
const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
const server = (p) => join(root, 'node_modules/@modelcontextprotocol', p, 'dist/index.js');
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-'));
const modernServer = join(root, 'test/fixtures/modern-server.mjs');
/** Client options of each era: the SDK's default 2025 handshake, or 2026-07-28 pinned. */
const ERA = { legacy: {}, modern: { versionNegotiation: { mode: { pin: '2026-07-28' } } } };
const configFile = join(dir, 'mcpkit.yaml');
const mainConfig = {
  mcp_servers: {
    everything: { command: process.execPath, args: [server('server-everything'), 'stdio'] },
    memory: { command: process.execPath, args: [server('server-memory')], env: { MEMORY_FILE_PATH: join(dir, 'm.json') } },
    filesystem: { command: process.execPath, args: [server('server-filesystem'), dir] },
    modern: { command: process.execPath, args: [modernServer, '--stdio'] },
  },
  tool_views: {
    one: { servers: ['everything'] },
    modern: { servers: { modern: { tools: { echo: {} } } } },
    three: { servers: ['everything', 'memory', 'filesystem'], exposure: 'direct' },
    three_search: { servers: ['everything', 'memory', 'filesystem'], exposure: 'search' },
  },
};
writeFileSync(configFile, JSON.stringify(mainConfig));
// The same view, served to named clients (serve.clients): what rules and limits cost a call.
const clientsConfigFile = join(dir, 'clients.yaml');
writeFileSync(
  clientsConfigFile,
  JSON.stringify({
    ...mainConfig,
    serve: {
      clients: {
        alice: { token: 'bench-alice', tools: ['+ *echo*', '+ get-*', '- *'], rate: '1000000/s', max_concurrent: 64 },
        bob: { token: 'bench-bob', read_only: true },
      },
    },
  }),
);
const ALICE = { authorization: 'Bearer bench-alice' };
const env = { ...process.env, MCPKIT_LOG_LEVEL: 'error' };

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function sequential(client, name, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await client.callTool({ name, arguments: { message: `m${i}` } });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return times;
}

async function measure(label, clients, toolName, pid, calls = N) {
  for (const c of clients) await sequential(c, toolName, WARM / clients.length);
  const cpu0 = pid ? cpuSeconds(pid) : NaN;
  const started = process.hrtime.bigint();
  const per = Math.floor(calls / clients.length);
  const all = (await Promise.all(clients.map((c) => sequential(c, toolName, per)))).flat();
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = pid ? cpuSeconds(pid) - cpu0 : NaN;
  all.sort((a, b) => a - b);
  return { label, calls: all.length, p50: pct(all, 50), p99: pct(all, 99), rate: all.length / wall, cpuPerCall: (cpu / all.length) * 1e3 };
}

async function stdioClient(command, args, era = 'legacy') {
  const transport = new StdioClientTransport({ command, args, env, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' }, ERA[era]);
  await client.connect(transport);
  return { client, pid: transport.pid };
}

async function httpClient(url, era = 'legacy', headers = {}) {
  const client = new Client({ name: 'bench', version: '1' }, ERA[era]);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: httpFetch, requestInit: { headers } }));
  return client;
}

/**
 * Reference ceiling: a bare node:http MCP endpoint that answers tools/call itself, no upstream, no
 * SDK server. What the client, Node's HTTP stack and this machine allow at best.
 */
async function startBareHttp() {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const msg = body ? JSON.parse(body) : {};
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result =
        msg.method === 'initialize'
          ? { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '0' } }
          : { content: [{ type: 'text', text: `Echo: ${msg.params?.arguments?.message}` }] };
      const text = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'bare', 'content-length': Buffer.byteLength(text) }).end(text);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}

async function startHttp(file = configFile) {
  const child = spawn(process.execPath, [bin, 'serve', '--http', '--port', '0', '--config', file, '--eager'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  for (let i = 0; i < 200 && !/listening on (\S+)\/mcp/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
  const base = /listening on (\S+)\/mcp/.exec(err)?.[1];
  if (!base) throw new Error(`serve --http did not start: ${err}`);
  return { child, base };
}

const results = [];
if (!onlyObservability) {
  const { server: bare, base } = await startBareHttp();
  const seq = await httpClient(`${base}/mcp`);
  results.push(await measure('reference: bare node:http endpoint, same client (no proxy)', [seq], 'echo', undefined));
  await seq.close();
  bare.close();
}
if (!onlyObservability) {
  const { client, pid } = await stdioClient(process.execPath, [server('server-everything'), 'stdio']);
  results.push(await measure('direct stdio (SDK client → server-everything)', [client], 'echo', undefined));
  void pid;
  await client.close();
}
if (!onlyObservability) {
  // The yardstick for a stdio proxy: the simplest one the SDK makes (bench/fixtures/sdk-passthrough.mjs).
  const passthrough = join(root, 'bench/fixtures/sdk-passthrough.mjs');
  const { client, pid } = await stdioClient(process.execPath, [passthrough, '--', process.execPath, server('server-everything'), 'stdio']);
  results.push(await measure('bare SDK passthrough, stdio', [client], 'echo', pid));
  await client.close();
}
if (!onlyObservability) {
  const { client, pid } = await stdioClient(process.execPath, [bin, 'serve', '--config', configFile, '--view', 'one']);
  results.push(await measure('mcpkit serve, stdio', [client], 'echo', pid));
  await client.close();
}
let tokens;
if (!onlyObservability) {
  const { child, base } = await startHttp();
  const seq = await httpClient(`${base}/view/one/mcp`);
  results.push(await measure('mcpkit serve --http, 1 keep-alive client', [seq], 'echo', child.pid));
  const many = await Promise.all(Array.from({ length: 8 }, () => httpClient(`${base}/view/one/mcp`)));
  results.push(await measure('mcpkit serve --http, 8 concurrent clients', many, 'echo', child.pid));
  const raw = await rawHttpClient(`${base}/view/one/mcp`);
  results.push(await measure('mcpkit serve --http, 1 light node:http client', [raw], 'echo', child.pid));
  const raws = await Promise.all(Array.from({ length: 8 }, () => rawHttpClient(`${base}/view/one/mcp`)));
  results.push(await measure('mcpkit serve --http, 8 light node:http clients', raws, 'echo', child.pid));
  const size = async (view) => {
    const c = await httpClient(`${base}/view/${view}/mcp`);
    const { tools } = await c.listTools();
    await c.close();
    const bytes = Buffer.byteLength(JSON.stringify({ tools }));
    return { tools: tools.length, bytes, tokens: Math.ceil(bytes / 4) };
  };
  tokens = { direct: await size('three'), search: await size('three_search') };
  await Promise.all([seq, ...many].map((c) => c.close()));
  child.kill('SIGTERM');
}

if (!onlyObservability) {
  // Named clients: alice's token, her tool rules, a rate and max_concurrent that never refuse (their cost, not their refusals).
  const { child, base } = await startHttp(clientsConfigFile);
  const seq = await httpClient(`${base}/view/one/mcp`, 'legacy', ALICE);
  results.push(await measure('serve.clients (2, rules + limits): serve --http, 1 keep-alive client', [seq], 'echo', child.pid));
  const raws = await Promise.all(Array.from({ length: 8 }, () => rawHttpClient(`${base}/view/one/mcp`, ALICE)));
  results.push(await measure('serve.clients (2, rules + limits): serve --http, 8 light node:http clients', raws, 'echo', child.pid));
  const modern = await httpClient(`${base}/view/modern/mcp`, 'modern', ALICE);
  results.push(await measure('serve.clients (2, rules + limits): 2026-07-28 serve --http, 1 keep-alive client', [modern], 'echo', child.pid));
  await Promise.all([seq, modern].map((c) => c.close()));
  child.kill('SIGTERM');
}

// Observability: the same serve --http with metrics off and no audit log, twice, and
// with both on (every call counted and written as a JSON line).
const observability = [];
const variant = (name, serve) => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    JSON.stringify({
      mcp_servers: { everything: { command: process.execPath, args: [server('server-everything'), 'stdio'] } },
      tool_views: { one: { servers: ['everything'] } },
      serve,
    }),
  );
  return file;
};
const off = variant('obs-off', { metrics: false, exposure: 'direct' });
const on = variant('obs-on', { audit_log: join(dir, 'audit.jsonl'), exposure: 'direct' });
/**
 * The servers compared: [kind, label, config file]. The second without observability is the noise
 * floor: what two servers of the same config differ by in this run (its ratio to the first should be 1).
 */
const variants = [
  ['off', 'off (no audit log, metrics: false)', off],
  ['off2', 'off, a second server (the noise floor)', off],
  ['on', 'on (audit log + /metrics)', on],
];
// The servers run side by side for the whole measurement, each warmed up once, and are
// measured in short bursts in turns (the order rotating by round): drift of this shared
// machine (another tenant, the CPU's clock) then falls on all alike within a round. A serve
// started afresh per round, as before, gave ratios from 0.8 to 1.2 between runs of the same code.
const started = [];
for (const [kind, label, file] of variants) {
  const { child, base } = await startHttp(file);
  const one = await rawHttpClient(`${base}/view/one/mcp`);
  const eight = await Promise.all(Array.from({ length: 8 }, () => rawHttpClient(`${base}/view/one/mcp`)));
  for (const clients of [[one], eight]) await Promise.all(clients.map((c) => sequential(c, 'echo', OBS_WARM / clients.length)));
  started.push({ kind, label, child, one, eight });
}
for (let round = 1; round <= OBS_ROUNDS; round++) {
  const order = [...started.slice(round % started.length), ...started.slice(0, round % started.length)];
  if (round % 2 === 0) order.reverse();
  for (const [clients, pick] of [
    [1, (s) => [s.one]],
    [8, (s) => s.eight],
  ]) {
    for (const s of order) {
      const r = await measure(`${s.label}, ${clients} light client${clients > 1 ? 's' : ''}, round ${round}`, pick(s), 'echo', s.child.pid, OBS_N);
      observability.push({ ...r, round, kind: s.kind, clients });
    }
  }
}
for (const s of started) {
  s.child.kill('SIGTERM');
  await new Promise((r) => s.child.once('exit', r));
}
// Every call was answered with a result, not an error, and each one written.
const written = readFileSync(join(dir, 'audit.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const failed = written.filter((l) => l.outcome !== 'ok').length;
if (failed) throw new Error(`${failed} of ${written.length} audited calls did not succeed`);

if (!onlyObservability) {
  const { client } = await stdioClient(process.execPath, [modernServer, '--stdio'], 'modern');
  results.push(await measure('2026-07-28: direct stdio (SDK client → 2.x fixture)', [client], 'echo', undefined));
  await client.close();
}
if (!onlyObservability) {
  const { client, pid } = await stdioClient(process.execPath, [bin, 'serve', '--config', configFile, '--view', 'modern'], 'modern');
  results.push(await measure('2026-07-28: mcpkit serve, stdio', [client], 'echo', pid));
  await client.close();
}
if (!onlyObservability) {
  const { child, base } = await startHttp();
  const seq = await httpClient(`${base}/view/modern/mcp`, 'modern');
  results.push(await measure('2026-07-28: mcpkit serve --http, 1 keep-alive client', [seq], 'echo', child.pid));
  const many = await Promise.all(Array.from({ length: 8 }, () => httpClient(`${base}/view/modern/mcp`, 'modern')));
  results.push(await measure('2026-07-28: mcpkit serve --http, 8 concurrent clients', many, 'echo', child.pid));
  await Promise.all([seq, ...many].map((c) => c.close()));
  child.kill('SIGTERM');
}

const direct = results.find((r) => r.label.startsWith('direct stdio'))?.p50;
const directModern = results.find((r) => r.label.startsWith('2026-07-28: direct stdio'))?.p50;
const fmt = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
if (!onlyObservability) {
  console.log(`proxy, ${N} sequential tools/call of echo after ${WARM} warm-up (node ${process.version}, ${new Date().toISOString().slice(0, 10)})`);
  console.log('| path | calls | p50 ms | p99 ms | added p50 ms | calls/s | mcpkit CPU ms/call |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of results) {
    const added = r.label.startsWith('mcpkit') ? fmt(r.p50 - direct) : r.label.startsWith('2026-07-28: mcpkit') ? fmt(r.p50 - directModern) : '';
    console.log(`| ${r.label} | ${r.calls} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${added} | ${fmt(r.rate, 0)} | ${fmt(r.cpuPerCall)} |`);
  }
  console.log('');
  console.log('tools/list of a 3-server view (everything, memory, filesystem); tokens = bytes/4');
  console.log('| exposure | tools | bytes | tokens (bytes/4) |');
  console.log('|---|---|---|---|');
  console.log(`| direct | ${tokens.direct.tools} | ${tokens.direct.bytes} | ${tokens.direct.tokens} |`);
  console.log(`| search | ${tokens.search.tools} | ${tokens.search.bytes} | ${tokens.search.tokens} |`);
}
console.log('');
/** The value at fraction q of the sorted values, rounded down (q < 0.5) or up (q > 0.5) to one of them. */
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[(q > 0.5 ? Math.ceil : Math.floor)((xs.length - 1) * q)];
const median = (xs) => quantile(xs, 0.5);
console.log(`observability over HTTP, off vs on: the servers running side by side, ${OBS_ROUNDS} rounds of ${OBS_N} calls each in turns`);
console.log('| serve --http | clients | median calls/s | median p50 ms | median mcpkit CPU ms/call |');
console.log('|---|---|---|---|---|');
for (const clients of [1, 8]) {
  for (const [kind, label] of variants) {
    const rows = observability.filter((r) => r.clients === clients && r.kind === kind);
    const col = (key) => median(rows.map((r) => r[key]));
    console.log(`| ${label} | ${clients} | ${fmt(col('rate'), 0)} | ${fmt(col('p50'))} | ${fmt(col('cpuPerCall'))} |`);
  }
}
console.log('');
console.log('the cost: calls/s with observability on, against the two servers without it (their mean within a round; all their calls pooled),');
console.log('and the noise floor: the second server without it against the first');
console.log('| ratio | clients | calls/s: median of rounds | quartiles | pooled | mcpkit CPU per call: pooled |');
console.log('|---|---|---|---|---|---|');
for (const [against, kinds, label] of [
  ['on', ['off', 'off2'], 'on / off'],
  ['off2', ['off'], 'off, second / first (noise floor)'],
]) {
  for (const clients of [1, 8]) {
    const rows = (ks) => observability.filter((r) => r.clients === clients && ks.includes(r.kind));
    const meanRate = (ks, round) => {
      const inRound = rows(ks).filter((r) => r.round === round);
      return inRound.reduce((sum, r) => sum + r.rate, 0) / inRound.length;
    };
    const rate = Array.from({ length: OBS_ROUNDS }, (_, i) => meanRate([against], i + 1) / meanRate(kinds, i + 1));
    const sum = (ks, f) => rows(ks).reduce((total, r) => total + f(r), 0);
    const pooled = (ks) => sum(ks, (r) => r.calls) / sum(ks, (r) => r.calls / r.rate);
    const cpu = (ks) => sum(ks, (r) => r.cpuPerCall * r.calls) / sum(ks, (r) => r.calls);
    const range = `${fmt(quantile(rate, 0.25))}-${fmt(quantile(rate, 0.75))}`;
    console.log(
      `| ${label} | ${clients} | ${fmt(median(rate))} | ${range} | ${fmt(pooled([against]) / pooled(kinds))} | ${fmt(cpu([against]) / cpu(kinds))} |`,
    );
  }
}
if (process.env.OBS_VERBOSE) {
  console.log('');
  console.log('| serve --http, each burst | calls/s | p50 ms | mcpkit CPU ms/call |');
  console.log('|---|---|---|---|');
  for (const r of observability) console.log(`| ${r.label} | ${fmt(r.rate, 0)} | ${fmt(r.p50)} | ${fmt(r.cpuPerCall)} |`);
}
rmSync(dir, { recursive: true, force: true }); // the servers above are stopped: nothing writes there now
process.exit(0);
