import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolError } from '../../core/errors.js';
import type { Route } from '../access/route-access.js';

/**
 * The wire of `serve --http` below the routes: JSON answers and JSON-RPC errors, a body read up
 * to its limit, the route a path names, and why listening failed, in words that say what to do.
 */

/** A header's first value (node gives a repeated header as a list). */
export const firstHeader = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** Sends `body` as JSON; the bytes sent (the audit log counts a hot-path result's from them). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number {
  const text = JSON.stringify(body);
  const bytes = Buffer.byteLength(text);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes, ...headers });
  res.end(text);
  return bytes;
}

export function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** Plain listeners, not `for await`: the async iterator cost ~0.1 ms per request here. */
export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes) throw Object.assign(new Error(`request body over ${maxBytes} bytes (serve.max_body_bytes)`), { status: 413 });
  await new Promise<void>((resolve, reject) => {
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        reject(Object.assign(new Error(`request body over ${maxBytes} bytes (serve.max_body_bytes)`), { status: 413 }));
      } else chunks.push(chunk);
    });
    req.once('end', resolve);
    req.once('error', reject);
  });
  if (size === 0) return undefined;
  try {
    // A small body comes in one chunk: nothing to join.
    return JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'));
  } catch {
    throw Object.assign(new Error('request body is not valid JSON'), { status: 400, rpc: -32700 });
  }
}

/** Why listening failed, in words that say what to do (the port is taken, the address is not ours, ...). */
export function listenFailed(error: NodeJS.ErrnoException, host: string, port: number): ToolError {
  const where = `${host}:${port}`;
  const reason =
    error.code === 'EADDRINUSE'
      ? `port ${port} on ${host} is already in use`
      : error.code === 'EACCES'
        ? `permission denied to listen on ${where} (ports below 1024 need privileges)`
        : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND'
          ? `${host} is not an address of this machine`
          : error.message;
  return new ToolError('LISTEN_FAILED', `Cannot serve HTTP on ${where}: ${reason}.`, {
    details: { host, port, errno: error.code },
    hint: error.code === 'EADDRINUSE' ? 'Choose another --port (0 picks a free one), or stop what holds it.' : 'Choose another --host or --port.',
  });
}

/** A request target that is a plain path: segments of letters, digits, `_` and `-`, at most one trailing slash. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-]+)+\/?$/;

/**
 * The path of a request target without its trailing slashes ("/" for none), as the WHATWG URL
 * parser resolves it (dot segments, %-escapes, a query, `//host/...`). A plain path, which every
 * MCP client sends, is its own answer: the URL object costs about as much as the route's own work.
 */
export function requestPath(target: string | undefined): string {
  if (target !== undefined && PLAIN_PATH.test(target)) return target.endsWith('/') ? target.slice(0, -1) : target;
  return new URL(target ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') || '/';
}

/** The route a request path names, or undefined for none (a malformed %-escape throws). */
export function routeOfPath(path: string): Route | undefined {
  if (path === '/mcp') return { kind: 'mcp' };
  if (path === '/views') return { kind: 'views' };
  if (path === '/health') return { kind: 'health' };
  if (path === '/metrics') return { kind: 'metrics' };
  const m = /^\/(view|views)\/([^/]+)(\/mcp)?$/.exec(path);
  if (!m) return undefined;
  const view = decodeURIComponent(m[2]!);
  if (m[1] === 'view' && m[3]) return { kind: 'view', view };
  if (m[1] === 'views' && !m[3]) return { kind: 'view-info', view };
  return undefined;
}

/** The URL path of a view's MCP route. */
export const viewPath = (view: string) => `/view/${encodeURIComponent(view)}/mcp`;

/**
 * Whether a browser sent the request from another site without an Origin header (an `<img>` or a
 * link: `Sec-Fetch-Site` says so; a script's request carries an Origin, which was checked).
 */
export function crossSiteWithoutOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  return req.headers.origin === undefined && (site === 'cross-site' || site === 'same-site');
}
