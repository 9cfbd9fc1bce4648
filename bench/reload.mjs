#!/usr/bin/env node
// From a config edit to notifications/tools/list_changed at a connected client, with
// the real SDK client over stdio and over streamable HTTP. Each edit alternately adds and removes
// a server; the clock starts when the edit is on disk (an atomic rename, as mcpkit's own edits
// do) and stops at the client's list_changed. `mcpkit server add` adds its own start-up (~0.5 s)
// before the edit lands; that is shown on its own row.
// Usage: node bench/reload.mjs [edits=10]   (needs "npm run build" first)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { spawn } from 'node:child_process';

const edits = Number(process.argv[2] ?? 10);
const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
const memory = join(root, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-reload-'));
const env = { ...process.env, XDG_CONFIG_HOME: dir, NO_COLOR: '1' };
delete env.MCPKIT_CONFIG;

const yaml = (extra) =>
  `mcp_servers:\n  memory:\n    command: ${process.execPath}\n    args: [${memory}]\n${extra ? `  extra:\n    command: ${process.execPath}\n    args: [${memory}]\n` : ''}`;

function atomicWrite(file, text) {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

async function measure(client, edit) {
  const times = [];
  for (let i = 0; i < edits; i++) {
    const heard = new Promise((resolve) => client.setNotificationHandler('notifications/tools/list_changed', async () => resolve(performance.now())));
    const start = await edit(i);
    times.push((await heard) - start);
    await new Promise((r) => setTimeout(r, 150)); // past the debounce, so each edit is its own reload
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], max: times.at(-1) };
}

async function stdioClient(file) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'serve', '--config', file], env, stderr: 'ignore' }));
  return client;
}

async function httpClient(file) {
  const child = spawn(process.execPath, [bin, 'serve', '--http', '--port', '0', '--config', file], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  while (!/listening on (http:\/\/\S+)\/mcp/.test(stderr)) await new Promise((r) => setTimeout(r, 20));
  const url = /listening on (http:\/\/\S+)\/mcp/.exec(stderr)[1];
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return { client, stop: () => child.kill('SIGTERM') };
}

const rows = [];
try {
  for (const transport of ['stdio', 'http']) {
    const file = join(dir, `${transport}.yaml`);
    writeFileSync(file, yaml(false));
    const served = transport === 'stdio' ? { client: await stdioClient(file), stop: () => {} } : await httpClient(file);
    await served.client.listTools();
    const byRename = await measure(served.client, async (i) => {
      const start = performance.now();
      atomicWrite(file, yaml(i % 2 === 0));
      return start;
    });
    rows.push({ transport, edit: 'atomic rename (as mcpkit edits)', ...byRename });
    const byHand = await measure(served.client, async (i) => {
      const start = performance.now();
      writeFileSync(file, yaml(i % 2 === 0));
      return start;
    });
    rows.push({ transport, edit: 'write in place (an editor)', ...byHand });
    const byCli = await measure(served.client, async (i) => {
      const start = performance.now();
      const args = i % 2 === 0 ? ['server', 'add', 'extra', '--command', process.execPath, '--arg', memory] : ['server', 'remove', 'extra'];
      execFileSync(process.execPath, [bin, ...args, '--config', file], { env, stdio: 'ignore' });
      return start;
    });
    rows.push({ transport, edit: 'mcpkit server add/remove (whole command)', ...byCli });
    await served.client.close();
    served.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`edit -> list_changed at the client, ${edits} edits each (ms)\n`);
console.log('| transport | edit | p50 | max |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.transport} | ${r.edit} | ${r.p50.toFixed(0)} | ${r.max.toFixed(0)} |`);
