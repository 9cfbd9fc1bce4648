#!/usr/bin/env node
// The CPU an answered tools/call costs serve's observers, measured alone: the call
// queue, the audit line (written to a real file) and the metrics, for as many calls as serve
// --http answers in a few seconds, in batches as the queue makes them. Set beside serve's own CPU
// per call (bench/proxy.mjs, "mcpkit CPU ms/call"), it is the observability cost without the
// noise of a whole-system measurement on a shared machine.
// Usage: node --import tsx bench/observers.mjs [calls=200000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../src/audit/audit-log.ts';
import { Auditor } from '../src/audit/auditor.ts';
import { CallQueue } from '../src/audit/call-queue.ts';
import { ServeMetrics } from '../src/audit/metrics.ts';

const calls = Number(process.argv[2] ?? 200_000);
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-observers-'));
const result = { content: [{ type: 'text', text: 'Echo: hello from the bench' }] };

async function run(label, observe) {
  const queue = new CallQueue({ batchMs: 25 });
  const log = new AuditLog(join(dir, `${label.replace(/\W+/g, '-')}.jsonl`), { maxBytes: 1 << 30 });
  const metrics = new ServeMetrics({ upstreams: () => [], sessions: () => 0, generation: () => 1 });
  if (observe.audit) queue.add(new Auditor(log, { arguments: false }));
  if (observe.metrics) queue.add(metrics);
  const before = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    queue.record({
      method: 'tools/call',
      name: 'echo',
      session: 'b5f7c1de-2a4e-4a55-9d5e-6a1f0c3b2e11',
      request: i,
      client: { name: 'bench', version: '1' },
      view: 'one',
      server: 'everything',
      upstreamName: 'echo',
      started: performance.now() - 0.4,
      args: { message: 'hello from the bench' },
      result,
      resultBytes: 57,
    });
    // Serve answers between batches: let the queue's timer and the log's writes run as they would.
    if (i % 100 === 99) await new Promise((r) => setImmediate(r));
  }
  queue.drain();
  await log.close();
  const cpu = process.cpuUsage(before);
  return { label, us: ((cpu.user + cpu.system) / calls).toFixed(2), wall: ((performance.now() - started) / calls).toFixed(2) };
}

try {
  const rows = [];
  for (const round of [1, 2]) {
    rows.push({ ...(await run(`none ${round}`, {})), round });
    rows.push({ ...(await run(`audit ${round}`, { audit: true })), round });
    rows.push({ ...(await run(`audit+metrics ${round}`, { audit: true, metrics: true })), round });
  }
  console.log(`${calls} calls, one process, CPU µs per call`);
  console.log('| observers | round | CPU µs/call |');
  console.log('|---|---|---|');
  for (const r of rows) console.log(`| ${r.label.replace(/ \d$/, '')} | ${r.round} | ${r.us} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
