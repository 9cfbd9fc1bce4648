#!/usr/bin/env node
// arango tools against the ArangoDB test server (test/support/arango-server.mjs; there is no
// ArangoDB here — set ARANGO_URL to measure a real one): arango_bulk_insert of 100,000 small
// documents through `mcpkit serve` at several batch sizes (documents/s, serve's peak memory), and
// 1,000 sequential arango_query calls over MCP against the same query made directly with arangojs
// in this process (p50/p99, and what mcpkit adds).
// Usage: node bench/arango.mjs [documents=100000] [queries=1000]   (needs "npm run build" first)
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { Database } from 'arangojs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startArango } from '../test/support/arango-server.mjs';

const total = Number(process.argv[2] ?? 100_000);
const queries = Number(process.argv[3] ?? 1000);
const root = new URL('..', import.meta.url).pathname;
const fake = process.env.ARANGO_URL ? undefined : await startArango();
const url = process.env.ARANGO_URL ?? fake.url;
const env = { ...process.env, ARANGO_URL: url };
delete env.MCPKIT_CONFIG;

const transport = new StdioClientTransport({ command: process.execPath, args: [join(root, 'bin/run.js'), 'serve'], env, stderr: 'inherit' });
const client = new Client({ name: 'bench', version: '1' });
await client.connect(transport);
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
  return r.structuredContent;
};
const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${transport.pid}/status`, 'utf8'))[1]) / 1024;
const pct = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

const run = Date.now().toString(36);
const docs = Array.from({ length: total }, (_, i) => ({ n: i, name: `user ${i}`, group: i % 10 }));
const rows = [];
for (const batch of [100, 1000, 10000]) {
  const collection = `bench_${run}_${batch}`;
  await call('arango_create_collection', { name: collection });
  const started = performance.now();
  const out = await call('arango_bulk_insert', { collection, documents: docs, batch_size: batch, on_error: 'continue' });
  const seconds = (performance.now() - started) / 1000;
  if (out.succeeded !== total) throw new Error(`inserted ${out.succeeded} of ${total}`);
  rows.push(
    `| arango_bulk_insert ${total.toLocaleString('en')} docs, batch ${batch} | ${seconds.toFixed(2)} s | ${Math.round(total / seconds).toLocaleString('en')} docs/s | serve peak ${hwm().toFixed(0)} MB |`,
  );
}

const db = new Database({ url, auth: { username: process.env.ARANGO_USERNAME ?? 'root', password: process.env.ARANGO_PASSWORD ?? '' } });
const query = 'FOR i IN 1..3 RETURN i';
for (let i = 0; i < 50; i++) {
  await call('arango_query', { query });
  await (await db.query(query)).all();
}
const direct = [];
const viaMcp = [];
for (let i = 0; i < queries; i++) {
  let t = performance.now();
  await (await db.query(query)).all();
  direct.push(performance.now() - t);
  t = performance.now();
  await call('arango_query', { query });
  viaMcp.push(performance.now() - t);
}
rows.push(`| ${queries} sequential arango_query, direct arangojs | p50 ${pct(direct, 0.5).toFixed(2)} ms | p99 ${pct(direct, 0.99).toFixed(2)} ms | |`);
rows.push(
  `| ${queries} sequential arango_query over MCP (stdio) | p50 ${pct(viaMcp, 0.5).toFixed(2)} ms | p99 ${pct(viaMcp, 0.99).toFixed(2)} ms | added p50 ${(pct(viaMcp, 0.5) - pct(direct, 0.5)).toFixed(2)} ms, p99 ${(pct(viaMcp, 0.99) - pct(direct, 0.99)).toFixed(2)} ms |`,
);

console.log(`arango: ${fake ? 'ArangoDB test server (in this process)' : url}`);
console.log('| case | time | rate | notes |');
console.log('|---|---|---|---|');
for (const row of rows) console.log(row);
db.close();
await client.close();
await fake?.close();
