#!/usr/bin/env node
// What clients that never read their answers make `serve --http` hold: N clients
// ask for a ~9 MB answer (open_file of a 4.5 MB file: its text and structured content) on raw
// sockets and never read, in waves. The table shows serve's resident memory before and as each
// wave was cut by serve.send_timeout_ms; then the same, waiting as long, with a send timeout
// longer than the run, which is how serve behaved before the bound. Freed memory is reused by the
// next wave rather than given back to the system, so the bound shows as a level that stays.
// Usage: node bench/slow-readers.mjs [clients=20] [timeout_ms=3000]   (needs "npm run build" first)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const clients = Number(process.argv[2] ?? 20);
const timeoutMs = Number(process.argv[3] ?? 3000);
const WAVES = 3;
const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-slow-'));
writeFileSync(join(dir, 'big.txt'), `${'0123456789abcdef'.repeat(4)}\n`.repeat(70_000));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rssMb = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);

async function round(sendTimeoutMs, waitMs) {
  const config = join(dir, `mcpkit-${sendTimeoutMs}.yaml`);
  writeFileSync(config, `retrieve: { roots: { code: ${dir} }, max_file_bytes: 67108864 }\nserve: { send_timeout_ms: ${sendTimeoutMs} }\n`);
  const child = spawn(process.execPath, [join(root, 'bin/run.js'), 'serve', '--http', '--port', '0', '--config', config], {
    env: { ...process.env, XDG_CONFIG_HOME: dir, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const sockets = [];
  try {
    while (!/listening on/.test(stderr)) await sleep(50);
    const url = new URL(/listening on (http:\/\/\S+)\/mcp/.exec(stderr)[1]);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${url}mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      }),
    });
    await init.text();
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id'), 'mcp-protocol-version': '2025-11-25' };
    const call = (id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'open_file', arguments: { path: 'code/big.txt' } } });
    const answer = (await (await fetch(`${url}mcp`, { method: 'POST', headers: session, body: call(2) })).arrayBuffer()).byteLength;
    await sleep(500);
    const before = rssMb(child.pid);
    const cuts = () => (stderr.match(/cut the answer/g) ?? []).length;
    const after = [];
    const waited = [];
    // Waves of clients: once a wave is cut (or as long as the bounded round's wave took), the next.
    for (let wave = 0; wave < WAVES; wave++) {
      for (let i = 0; i < clients; i++) {
        const body = call(10 + wave * clients + i);
        const socket = connect(Number(url.port), url.hostname);
        const head = Object.entries({ host: url.host, 'content-length': String(Buffer.byteLength(body)), ...session })
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('');
        socket.write(`POST /mcp HTTP/1.1\r\n${head}\r\n${body}`);
        socket.pause();
        socket.on('error', () => undefined);
        sockets.push(socket);
      }
      const started = Date.now();
      const limit = waitMs?.[wave];
      while (limit !== undefined ? Date.now() - started < limit : cuts() < (wave + 1) * clients && Date.now() - started < 120_000) await sleep(100);
      waited.push(Date.now() - started);
      after.push(rssMb(child.pid));
    }
    return { answer, before, after, cut: cuts(), waited };
  } finally {
    for (const s of sockets) s.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

try {
  const bounded = await round(timeoutMs);
  const unbounded = await round(10 * 60_000, bounded.waited);
  const rows = [
    [`send_timeout_ms ${timeoutMs}`, bounded],
    ['send_timeout_ms 600000 (as before)', unbounded],
  ];
  console.log(
    `${WAVES} waves of ${clients} clients that never read a ${(bounded.answer / 1e6).toFixed(1)} MB answer; serve's RSS in MB when each wave was cut`,
  );
  console.log(`(the bounded round's waves took ${bounded.waited.map((w) => (w / 1000).toFixed(1)).join(', ')} s; the other round waited as long)`);
  console.log(`| serve | before | ${bounded.after.map((_, i) => `wave ${i + 1}`).join(' | ')} | streams cut |`);
  console.log(`|---|---|${bounded.after.map(() => '---|').join('')}---|`);
  for (const [name, r] of rows) console.log(`| ${name} | ${r.before} | ${r.after.join(' | ')} | ${r.cut} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
