#!/usr/bin/env node
// Registry speed against the local fixture registry (test/fixtures/registry-server.mjs, 464 real
// entries): `registry list --all --limit 100` as a whole process, and the seed's auto-truncation
// of a 5 MB synthetic response (throughput and memory).
// Usage: node bench/registry.mjs [runs=5]   (needs "npm run build" first)
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { truncateResponse } from '../dist/registry/truncate.js';
import { startRegistry } from '../test/fixtures/registry-server.mjs';

const runs = Number(process.argv[2] ?? 5);
const root = new URL('..', import.meta.url).pathname;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const registry = await startRegistry();
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-registry-'));
writeFileSync(join(dir, 'mcpkit.yaml'), `registry:\n  default: local\n  sources:\n    local:\n      url: ${registry.url}\n`);
const env = { ...process.env, MCPKIT_CONFIG: join(dir, 'mcpkit.yaml'), NO_COLOR: '1' };

const walls = [];
let listed;
for (let i = 0; i < runs; i++) {
  const before = registry.control.requests.length;
  const started = performance.now();
  // Asynchronous: the registry answers from this very process.
  const r = await promisify(execFile)(process.execPath, [join(root, 'bin/run.js'), 'registry', 'list', '--all', '--limit', '100', '--json'], {
    env,
    maxBuffer: 1 << 28,
  });
  walls.push((performance.now() - started) / 1000);
  listed = { servers: JSON.parse(r.stdout).servers.length, pages: registry.control.requests.length - before };
}
await registry.close();
const node = median(
  Array.from({ length: runs }, () => {
    const started = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    return (performance.now() - started) / 1000;
  }),
);

// A response shaped like the API's, ~5 MB: long descriptions and readmes, deep _meta with tool lists.
const entry = (i) => ({
  server: {
    name: `io.github.bench/server-${i}`,
    description: `Server ${i} `.repeat(40),
    version: '1.0.0',
    readme: `# Server ${i}\n${'Some documentation text. '.repeat(60)}`,
    packages: [
      {
        registryType: 'npm',
        identifier: `bench-${i}`,
        version: '1.0.0',
        transport: { type: 'stdio' },
        environmentVariables: [{ name: 'KEY', description: 'k'.repeat(250) }],
      },
    ],
  },
  _meta: { 'com.example/stats': { tools: { list: Array.from({ length: 12 }, (_, t) => ({ name: `tool_${t}`, description: 'd'.repeat(60) })) }, visitors: i } },
});
const servers = [];
let size = 0;
while (size < 5 * 1024 * 1024) {
  servers.push(entry(servers.length));
  size += JSON.stringify(servers.at(-1)).length + 1;
}
const response = { servers, metadata: { count: servers.length } };
const bytes = JSON.stringify(response).length;
const rssBefore = process.memoryUsage().rss;
const times = [];
let out;
for (let i = 0; i < runs; i++) {
  const started = performance.now();
  out = truncateResponse(response, ['servers[].server.name']);
  times.push((performance.now() - started) / 1000);
}
const peakMb = process.resourceUsage().maxRSS / 1024;
const outBytes = JSON.stringify(out).length;
const t = median(times);

console.log(`registry: local fixture (${registry.entries.length} entries), median of ${runs} runs`);
console.log('| case | figure |');
console.log('|---|---|');
console.log(
  `| registry list --all --limit 100 | ${listed.servers} servers, ${listed.pages} pages, ${median(walls).toFixed(2)} s wall (node -e 0: ${node.toFixed(2)} s) |`,
);
console.log(
  `| truncate ${(bytes / 1e6).toFixed(1)} MB (${servers.length} entries) | ${(t * 1000).toFixed(0)} ms, ${(bytes / 1e6 / t).toFixed(0)} MB/s (target >= 50), output ${(outBytes / 1e6).toFixed(1)} MB |`,
);
console.log(`| memory | rss before truncation ${(rssBefore / 1048576).toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB |`);
