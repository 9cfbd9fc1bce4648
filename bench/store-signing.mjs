#!/usr/bin/env node
// What signing costs (serve.store.key): one passed call's message sealed by its sender and opened,
// checked for freshness and replays by its receiver, as store/store-channel.ts does, and one task
// record sealed and opened (store/shared-store.ts). p50 and p99 of each, in ms, as table rows.
// Run by bench/store.mjs; alone: node --import tsx bench/store-signing.mjs   (N, default 20000)
import { randomUUID } from 'node:crypto';
import { ReplayGuard, StoreSigner } from '../src/store/store-signing.ts';

const N = Number(process.env.SIGN_N ?? 20_000);
const signer = new StoreSigner('bench-store-key-0123456789abcdefghijklmnopq', 'mcpkit');
const guard = new ReplayGuard();
const holder = randomUUID();
const call = {
  kind: 'call',
  id: randomUUID(),
  holder,
  from: randomUUID(),
  path: '/view/old/mcp',
  body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { message: 'x'.repeat(200) }, requestState: `${holder}.abc` } },
  headers: { 'mcp-protocol-version': '2026-07-28' },
  caller: { id: 'client:alice', via: 'token', client: 'alice' },
};
const record = {
  owner: 'alice',
  holder,
  task: { taskId: randomUUID(), status: 'working', createdAt: new Date().toISOString(), ttlMs: 60_000, pollInterval: 1000 },
};

function measure(one) {
  for (let i = 0; i < 2000; i++) one(); // warm-up
  const times = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    one();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(N / 2)], p99: times[Math.floor(N * 0.99)] };
}

const message = measure(() => {
  const text = signer.seal('call', 'mcpkit:tasks', call.from, call, Date.now());
  const opened = signer.open(text, 'mcpkit:tasks', ['call', 'reply', 'cancel', 'update']);
  if (!opened.ok || guard.admit(opened.sentAt, opened.nonce, Date.now()) !== true) throw new Error('not taken');
});
const task = measure(() => {
  const text = signer.seal('task', 'mcpkit:{task:1}', holder, record, Date.now());
  if (!signer.open(text, 'mcpkit:{task:1}', ['task']).ok) throw new Error('not taken');
});
const row = (name, m) => console.log(`| ${name} | ${m.p50.toFixed(4)} | ${m.p99.toFixed(4)} |`);
console.log(`\n| signing (serve.store.key), ${N} each | p50 ms | p99 ms |`);
console.log('|---|---|---|');
console.log("| a limited call's admission | none: limits confer no authority, nothing is signed | |");
row('a passed call: message sealed, opened, fresh and once', message);
row("a task's record: sealed and opened", task);
