#!/usr/bin/env node
// The CPU of one whole `serve --http`, its own only (not its upstream's): start, listen, one
// client's initialize, tools/list and a tools/call of server-everything's echo over HTTP, the
// session deleted, SIGTERM, exit. The HTTP twin of bench/serve-once-cpu.mjs (the suite starts ~80
// of these): median of N runs, builds interleaved so that load on the machine falls on each alike.
// The client is plain fetch in this process, so that only serve's own CPU is in the figure.
// Usage: node bench/serve-once-http-cpu.mjs [runs=5] [--against DIR] [--cpu-prof DIR]   (needs "npm run build" first)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const against = argv.includes('--against') ? argv.splice(argv.indexOf('--against'), 2)[1] : undefined;
// --cpu-prof DIR: each measured serve writes a V8 CPU profile there (bench/profile-top.mjs reads them).
const profDir = argv.includes('--cpu-prof') ? argv.splice(argv.indexOf('--cpu-prof'), 2)[1] : undefined;
const runs = Number(argv[0] ?? 5);
const root = new URL('..', import.meta.url).pathname;
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
// process.cpuUsage() at exit: the process's own CPU, all its threads, none of its children's.
const atExit = `data:text/javascript,${encodeURIComponent(
  "import { writeFileSync } from 'node:fs'; process.on('exit', () => { const u = process.cpuUsage(); writeFileSync(process.env.CPU_OUT, String((u.user + u.system) / 1000)); });",
)}`;

/** One JSON-RPC message over streamable HTTP: its answer (JSON or the SSE event that carries it). */
async function post(url, session, message) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${message.method}: HTTP ${response.status}: ${text.slice(0, 300)}`);
  return { session: response.headers.get('mcp-session-id') ?? session, text };
}

async function once(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-once-http-'));
  try {
    writeFileSync(join(dir, 'cfg.yaml'), `mcp_servers:\n  everything:\n    command: ${process.execPath}\n    args: [${everything}, stdio]\n`);
    const env = { ...process.env, XDG_CONFIG_HOME: join(dir, 'xdg'), CPU_OUT: join(dir, 'cpu'), MCPKIT_LOG_LEVEL: 'error' };
    delete env.NODE_EXTRA_CA_CERTS; // adds ~90 ms to every node start here
    delete env.MCPKIT_CONFIG;
    const child = spawn(
      process.execPath,
      [
        ...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []),
        '--import',
        atExit,
        bin,
        'serve',
        '--http',
        '--port',
        '0',
        '--exposure',
        'direct',
        '--config',
        join(dir, 'cfg.yaml'),
      ],
      {
        env,
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const base = await new Promise((resolve, reject) => {
      let err = '';
      child.stderr.on('data', (d) => {
        err += d;
        const found = /listening on (http:\/\/\S+\/mcp)/.exec(err);
        if (found) resolve(found[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve --http exited ${code}: ${err}`)));
    });
    const init = await post(base, undefined, {
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    });
    await post(base, init.session, { method: 'notifications/initialized' });
    const listed = await post(base, init.session, { id: 2, method: 'tools/list' });
    if (!listed.text.includes('everything__echo')) throw new Error(`tools/list: ${[...listed.text.matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]).join(' ')}`);
    const called = await post(base, init.session, { id: 3, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'hi' } } });
    if (!called.text.includes('Echo: hi')) throw new Error(`the call was not answered by server-everything's echo: ${called.text.slice(0, 300)}`);
    await fetch(base, { method: 'DELETE', headers: { 'mcp-session-id': init.session, 'mcp-protocol-version': '2025-11-25' } });
    child.kill('SIGTERM');
    await exited;
    return Number(readFileSync(join(dir, 'cpu'), 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const builds = { this: join(root, 'bin/run.js'), ...(against ? { against: join(against, 'bin/run.js') } : {}) };
const cpu = Object.fromEntries(Object.keys(builds).map((k) => [k, []]));
for (let i = 0; i < runs; i++) for (const [name, bin] of Object.entries(builds)) cpu[name].push(await once(bin));
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const [name, ms] of Object.entries(cpu)) console.log(`${name}: median ${median(ms).toFixed(0)} ms CPU (${ms.map((m) => m.toFixed(0)).join(', ')})`);
