#!/usr/bin/env node
// One mcpkit serve under node --cpu-prof, as bench/gateway-cpu.mjs runs it (SDK client, echo of
// server-everything, in sequence), for as many calls as asked after a warm-up, then ended so the
// profile is written; its top frames by self time follow (bench/profile-top.mjs).
// Usage: node bench/profile-serve.mjs stdio|http-2025|http-2026 [calls=20000] [bin=bin/run.js]
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { httpFetch } from './http-clients.mjs';
import { writeEchoConfig } from './echo-view.mjs';

const root = new URL('..', import.meta.url).pathname;
const [path = 'stdio', calls = '20000', bin = join(root, 'bin/run.js')] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-profile-'));
const configFile = writeEchoConfig(dir);
const env = { ...process.env, MCPKIT_LOG_LEVEL: 'error' };
const args = ['--cpu-prof', '--cpu-prof-dir', join(dir, 'prof'), resolve(bin), 'serve', '--config', configFile];
const client = new Client({ name: 'bench', version: '1' }, path === 'http-2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
let stop;
if (path === 'stdio') {
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [...args, '--view', 'one'], env, stderr: 'ignore' }));
  stop = () => client.close();
} else {
  const child = spawn(process.execPath, [...args, '--http', '--port', '0', '--eager'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  for (let i = 0; i < 400 && !/listening on (\S+)\/mcp/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
  const url = /listening on (\S+)\/mcp/.exec(err)?.[1];
  if (!url) throw new Error(`serve --http did not start: ${err}`);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/view/one/mcp`), { fetch: httpFetch }));
  const exited = new Promise((r) => child.once('exit', r));
  stop = async () => (await client.close(), child.kill('SIGTERM'), await exited);
}
for (let i = 0; i < Number(calls) + 2000; i++) await client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
await stop();
for (let i = 0; i < 100 && !readdirSync(dir).includes('prof'); i++) await new Promise((r) => setTimeout(r, 50));
await new Promise((r) => setTimeout(r, 500));
const [file] = readdirSync(join(dir, 'prof'));
console.log(execFileSync(process.execPath, [join(root, 'bench/profile-top.mjs'), join(dir, 'prof', file), '10'], { encoding: 'utf8' }));
if (process.env.KEEP) console.log(`profile kept: ${join(dir, 'prof', file)}`);
else rmSync(dir, { recursive: true, force: true });
process.exit(0);
