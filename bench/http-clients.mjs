// What the HTTP benchmarks share: a keep-alive agent, a light JSON-RPC client, and a process' CPU time.
import http from 'node:http';
import { readFileSync } from 'node:fs';

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
