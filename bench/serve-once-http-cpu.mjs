#!/usr/bin/env node
// The CPU of one whole `serve --http`, its own only (not its upstream's): start, listen, one
// client's initialize, tools/list and a tools/call of server-everything's echo over HTTP, the
// session deleted, SIGTERM, exit. The HTTP twin of bench/serve-once-cpu.mjs (the suite starts ~80
// of these): median of N runs, builds interleaved so that load on the machine falls on each alike.
// The client is plain fetch in this process, so that only serve's own CPU is in the figure.
// Usage: node bench/serve-once-http-cpu.mjs [runs=5] [--against DIR] [--cpu-prof DIR]   (needs "npm run build" first)
import { spawn } from 'node:child_process';
import { buildsOf, compareBuilds, measuredServe, takeOption } from './fixtures/serve-once.mjs';

const argv = process.argv.slice(2);
const against = takeOption(argv, '--against');
// --cpu-prof DIR: each measured serve writes a V8 CPU profile there (bench/profile-top.mjs reads them).
const profDir = takeOption(argv, '--cpu-prof');
const runs = Number(argv[0] ?? 5);

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

function once(bin) {
  return measuredServe('mcpkit-bench-once-http-', profDir, async ({ dir, config, env, nodeArgs }) => {
    const child = spawn(process.execPath, [...nodeArgs, bin, 'serve', '--http', '--port', '0', '--exposure', 'direct', '--config', config], {
      env,
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
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
  });
}

await compareBuilds(buildsOf(against), runs, once);
