#!/usr/bin/env node
// Time of one config edit (mcpkit server add, a whole process) on configs of 1k, 10k and 100k
// servers: edits should grow about linearly with the file. Usage: node bench/config-edits.mjs [sizes...]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sizes = process.argv.slice(2).map(Number).filter(Boolean);
const bin = new URL('../bin/run.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-edits-'));
const node = () => {
  const t = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0']);
  return Number(process.hrtime.bigint() - t) / 1e6;
};
try {
  console.log(`config edits, one "server add" per size (node ${process.version}; node -e 0: ${node().toFixed(0)} ms)`);
  console.log('| servers | file MB | server add s | per 1k servers ms | max RSS MB |');
  console.log('|---|---|---|---|---|');
  for (const n of sizes.length ? sizes : [1000, 10_000, 100_000]) {
    const file = join(dir, `c${n}.yaml`);
    let text = 'mcp_servers:\n';
    for (let i = 0; i < n; i++) text += `  s${i}:\n    command: node\n    args: [server.js]\n`;
    writeFileSync(file, text);
    const started = process.hrtime.bigint();
    const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, bin, 'server', 'add', 'added', '--command', 'node', '--config', file], {
      encoding: 'utf8',
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (r.status !== 0) throw new Error(`server add failed: ${r.stderr}`);
    const rss = Number(r.stderr.trim().split('\n').at(-1)) / 1024;
    console.log(
      `| ${n} | ${(statSync(file).size / 1e6).toFixed(1)} | ${seconds.toFixed(2)} | ${((seconds * 1000 * 1000) / n).toFixed(1)} | ${rss.toFixed(0)} |`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
