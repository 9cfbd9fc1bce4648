#!/usr/bin/env node
// Start-up of whole processes, median of N runs, all measured in this one run so the figures
// compare (this machine's NODE_EXTRA_CA_CERTS alone adds ~90 ms to every node start).
// Usage: node bench/startup.mjs [runs=15]   (needs "npm run build" first)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 15);
const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
// An empty config dir, so every run sees the same (missing) user config.
const env = { ...process.env, XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'mcpkit-bench-')), NO_COLOR: '1' };
delete env.MCPKIT_CONFIG;

function timeProcess(args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, cwd: tmpdir(), stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Spawn `serve`, send initialize, stop the clock at the first answer line. */
function timeServeInitialize() {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin, 'serve'], { env, cwd: tmpdir(), stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        if (!out.includes('"result"')) reject(new Error(`unexpected answer: ${out}`));
        child.stdin.end();
        child.once('exit', () => resolve(ms));
      }
    });
    child.once('error', reject);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } })}\n`,
    );
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const cases = [
  ['node -e 0', () => timeProcess(['-e', '0'])],
  ['mcpkit --version', () => timeProcess([bin, '--version'])],
  ['mcpkit config path', () => timeProcess([bin, 'config', 'path'])],
  ['mcpkit tools --json', () => timeProcess([bin, 'tools', '--json'])],
  ['mcpkit serve → initialize answered', timeServeInitialize],
];

const samples = new Map(cases.map(([name]) => [name, []]));
// Interleave the cases so drift in machine load hits them all alike.
for (let i = 0; i < runs + 1; i++) {
  for (const [name, fn] of cases) {
    const ms = await fn();
    if (i > 0) samples.get(name).push(ms); // first round warms the disk cache
  }
}

const base = median(samples.get('node -e 0'));
const targets = { 'mcpkit config path': 200, 'mcpkit serve → initialize answered': 300 };
const rows = cases.map(([name]) => {
  const m = median(samples.get(name));
  const over = m - base;
  const target = targets[name];
  return {
    name,
    median: m.toFixed(0),
    over: name === 'node -e 0' ? '' : `+${over.toFixed(0)}`,
    target: target ? `≤ +${target}` : '',
    ok: target ? (over <= target ? 'yes' : 'NO') : '',
  };
});
const cols = [
  ['command', 'name'],
  ['median ms', 'median'],
  ['over node', 'over'],
  ['target', 'target'],
  ['met', 'ok'],
];
const width = cols.map(([h, k]) => Math.max(h.length, ...rows.map((r) => String(r[k]).length)));
const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(width[i])).join(' | ')} |`;
console.log(`startup, median of ${runs} runs (node ${process.version}, ${new Date().toISOString().slice(0, 10)})`);
console.log(line(cols.map(([h]) => h)));
console.log(`|${width.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of rows) console.log(line(cols.map(([, k]) => r[k])));
