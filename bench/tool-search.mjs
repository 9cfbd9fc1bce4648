#!/usr/bin/env node
// The tool search's top-1 and top-5 on its evaluation set (test/fixtures/tool-search-eval.json),
// through the real search meta-tool of the default view over mcpkit's own tools plus
// server-everything, server-memory and server-filesystem, run in this process from the sources
// (so a change to the ranking is measured without a build).
// Usage: node --import tsx bench/tool-search.mjs [--misses]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../src/app/runtime.ts';

const root = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'mcpkit-bench-search-'));
const server = (pkg, ...args) => ({ command: process.execPath, args: [join(root, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js'), ...args] });
const config = join(work, 'mcpkit.yaml');
writeFileSync(
  config,
  JSON.stringify({
    mcp_servers: {
      everything: server('server-everything', 'stdio'),
      memory: { ...server('server-memory'), env: { MEMORY_FILE_PATH: join(work, 'memory.json') } },
      filesystem: server('server-filesystem', work),
    },
    serve: { exposure: 'search' },
  }),
);
const env = { ...process.env, XDG_CONFIG_HOME: work, XDG_STATE_HOME: work, XDG_CACHE_HOME: work };
delete env.MCPKIT_CONFIG;
const cases = JSON.parse(readFileSync(join(root, 'test/fixtures/tool-search-eval.json'), 'utf8')).cases;
const runtime = createRuntime({
  configFlag: config,
  env,
  cwd: work,
  surface: 'mcp',
  version: 'bench',
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});
const tally = { tune: { n: 0, top1: 0, top5: 0 }, 'held-out': { n: 0, top1: 0, top5: 0 } };
const misses = [];
await runtime.withHub(undefined, async (hub) => {
  const context = runtime.context();
  for (const c of cases) {
    const outcome = await hub.call('mcpkit_search_tools', { query: c.query, limit: 5 }, context);
    const names = outcome.result.structuredContent.results.map((r) => r.name);
    const t = tally[c.set];
    t.n++;
    if (c.expect.includes(names[0])) t.top1++;
    else misses.push(`"${c.query}" gave ${names.join(', ')}; wanted ${c.expect.join(' or ')}`);
    if (names.some((n) => c.expect.includes(n))) t.top5++;
  }
});
await runtime.close();
rmSync(work, { recursive: true, force: true });
const pct = (k, n) => `${((100 * k) / n).toFixed(1)}%`;
const all = { n: tally.tune.n + tally['held-out'].n, top1: tally.tune.top1 + tally['held-out'].top1, top5: tally.tune.top5 + tally['held-out'].top5 };
console.log('| set | phrasings | top-1 | top-5 |');
console.log('|---|---|---|---|');
for (const [set, t] of Object.entries({ ...tally, all })) console.log(`| ${set} | ${t.n} | ${pct(t.top1, t.n)} | ${pct(t.top5, t.n)} |`);
if (process.argv.includes('--misses')) console.log(`\nnot first:\n${misses.join('\n')}`);
process.exit(0);
