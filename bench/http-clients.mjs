// What the HTTP benchmarks share: a keep-alive agent, a light JSON-RPC client, and a process' CPU time.
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';

/** One keep-alive agent for every client of a benchmark run. */
export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** CPU seconds a process has used so far (user + system), from /proc. */
export function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * A light keep-alive JSON-RPC client (node:http, no SDK): initialize, then tools/call in a loop.
 * Shows the server's own throughput without the SDK client's per-call cost (~1 ms CPU here).
 */
export async function rawHttpClient(url, extraHeaders = {}) {
  const u = new URL(url);
  let session;
  let nextId = 1;
  const post = (body) =>
    new Promise((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = http.request(
        {
          hostname: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': Buffer.byteLength(text),
            'mcp-protocol-version': '2025-06-18',
            ...extraHeaders,
            ...(session ? { 'mcp-session-id': session } : {}),
          },
        },
        (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (d) => (data += d));
          res.on('end', () => {
            session ??= res.headers['mcp-session-id'];
            resolve(data);
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  await post({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await post({ jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} });
  return {
    callTool: ({ name, arguments: args }) => post({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } }),
  };
}

/** CPU seconds of a process and every descendant still alive (serve and its upstreams), from /proc. */
export function treeCpu(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // ended between the listing and the read
    }
  }
  let total = 0;
  const walk = (p) => {
    total += cpuSeconds(p) || 0;
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return total;
}

/** A keep-alive node:http fetch for the SDK's HTTP client: Node 20's global fetch costs ~1 ms CPU per call on the client alone. */
export async function httpFetch(url, init = {}) {
  const u = new URL(url);
  const headers = Object.fromEntries(new Headers(init.headers ?? {}).entries());
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: u.hostname, port: u.port, path: u.pathname + u.search, method: init.method ?? 'GET', headers, agent }, (res) => {
      const h = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
      const body = res.statusCode === 204 || res.statusCode === 202 ? null : Readable.toWeb(res);
      if (body === null) res.resume();
      resolve(new Response(body, { status: res.statusCode, headers: h }));
    });
    req.on('error', reject);
    // The SDK passes one long-lived signal: a listener left on it per request would pile up.
    const abort = () => req.destroy(new Error('aborted'));
    init.signal?.addEventListener('abort', abort, { once: true });
    req.once('close', () => init.signal?.removeEventListener('abort', abort));
    if (init.body) req.end(init.body);
    else req.end();
  });
}
