#!/usr/bin/env node
// A started gateway's first tools/list (issue 70), in one run, rounds interleaved. Two upstreams,
// server-everything and server-memory (real servers from npm), behind each way of starting serve:
// - over HTTP, "started" is serve's "listening" line: from it, a client's connect (initialize) and
//   its first tools/list; the column that counts is "listening -> first list answered";
// - over stdio, the client starts serve itself: spawn -> initialize answered, then the first list.
// Ways: the default, --no-eager (servers start on first use), --eager, and serve.list_from_lock
// (--no-eager with the approved lock answering while the servers start). With --against DIR, the
// same rows for that build (an older one reads no --no-eager: its default is on first use).
// Usage: node bench/first-list.mjs [rounds=7] [--against DIR]   (needs "npm run build" first)
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const against = argv.includes('--against') ? argv.splice(argv.indexOf('--against'), 2)[1] : undefined;
const ROUNDS = Number(argv[0] ?? 7);
const root = new URL('..', import.meta.url).pathname;
const pkg = (name) => join(root, `node_modules/@modelcontextprotocol/${name}/dist/index.js`);
const servers = {
  everything: { command: process.execPath, args: [pkg('server-everything'), 'stdio'] },
  memory: { command: process.execPath, args: [pkg('server-memory')] },
};
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-first-'));
const env = { ...process.env, MCPKIT_LOG_LEVEL: 'error', MEMORY_FILE_PATH: join(dir, 'memory.jsonl') };
const configOf = (name, serve) => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, JSON.stringify({ mcp_servers: servers, serve: { exposure: 'direct', ...serve } }));
  return file;
};
const plain = configOf('plain', {});
const fromLock = configOf('lock', { list_from_lock: true });
const builds = [['this build', join(root, 'bin/run.js')], ...(against ? [[against, join(against, 'bin/run.js')]] : [])];
const ways = builds.flatMap(([build, bin]) => [
  { label: 'default', build, bin, config: plain, flags: [] },
  ...(build === 'this build' ? [{ label: '--no-eager', build, bin, config: plain, flags: ['--no-eager'] }] : []),
  { label: '--eager', build, bin, config: plain, flags: ['--eager'] },
  { label: 'serve.list_from_lock', build, bin, config: fromLock, flags: build === 'this build' ? ['--no-eager'] : [] },
]);

/** serve --http of a build, until it says it listens: its URL, and when it said so. */
async function listening(way) {
  const child = spawn(process.execPath, [way.bin, 'serve', '--http', '--port', '0', '--config', way.config, ...way.flags], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const spawned = performance.now();
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const found = /listening on (http:\/\/[^\s/]+)\/mcp/.exec(text);
      if (found) resolve(found[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${text}`)));
  });
  return { child, url, start: performance.now() - spawned };
}

async function httpRound(way) {
  const { child, url, start } = await listening(way);
  try {
    const said = performance.now();
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    const initialized = performance.now();
    const { tools } = await client.listTools();
    const listed = performance.now();
    await client.close();
    if (!tools.some((t) => t.name.startsWith('memory__')) || !tools.some((t) => t.name.startsWith('everything__'))) throw new Error(`listed ${tools.length}`);
    return { start, initialize: initialized - said, list: listed - initialized, total: listed - said };
  } finally {
    child.kill();
  }
}

async function stdioRound(way) {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  const args = [way.bin, 'serve', '--config', way.config, ...way.flags];
  await client.connect(new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' }));
  const initialized = performance.now();
  const { tools } = await client.listTools();
  const listed = performance.now();
  await client.close();
  if (!tools.some((t) => t.name.startsWith('memory__'))) throw new Error(`listed ${tools.length}`);
  return { start: 0, initialize: initialized - started, list: listed - initialized, total: listed - started };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = new Map();
const nodeStart = [];
try {
  for (let round = 0; round <= ROUNDS; round++) {
    const t = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    if (round > 0) nodeStart.push(performance.now() - t);
    for (const way of ways) {
      for (const [transport, run] of [
        ['http', httpRound],
        ['stdio', stdioRound],
      ]) {
        const key = `${transport} | ${way.label} | ${way.build}`;
        const r = await run(way);
        // Round 0 pins the tools on first use (the lock list_from_lock reads) and warms the disk cache.
        if (round > 0) rows.set(key, [...(rows.get(key) ?? []), r]);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const ms = (x) => `${Math.round(x)} ms`;
console.log(`node -e 0: ${ms(median(nodeStart))}; medians of ${ROUNDS} rounds; upstreams: server-everything, server-memory\n`);
console.log(
  '| transport | way | build | spawn -> listening | listening (stdio: spawn) -> initialize answered | first tools/list | listening (stdio: spawn) -> first list answered |',
);
console.log('|---|---|---|---|---|---|---|');
for (const [key, rs] of rows) {
  const col = (f) => ms(median(rs.map(f)));
  const start = key.startsWith('http') ? col((r) => r.start) : '-';
  console.log(`| ${key} | ${start} | ${col((r) => r.initialize)} | ${col((r) => r.list)} | ${col((r) => r.total)} |`);
}
