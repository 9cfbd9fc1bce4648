import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAME = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** The host part of a Host header (`name:port`, `[v6]:port`). */
function hostName(host: string): string {
  const v6 = /^(\[[^\]]*\])(?::\d+)?$/.exec(host);
  if (v6) return v6[1]!;
  return host.replace(/:\d+$/, '');
}

export function isLoopbackAddress(host: string): boolean {
  return ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host) || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * The transport's DNS-rebinding defence (MCP 2025-11-25, basic/transports): an Origin that is
 * neither loopback nor allowed is refused; bound to loopback, so is a Host that is not a loopback
 * name (a page on evil.example resolving its name to 127.0.0.1 sends Host: evil.example).
 * Returns the reason to refuse, or undefined. Pure.
 */
export function refusedByOrigin(
  headers: { host?: string; origin?: string },
  options: { loopbackBound: boolean; allowedOrigins: readonly string[] },
): string | undefined {
  const { origin, host } = headers;
  if (origin !== undefined && origin !== 'null') {
    let name: string | undefined;
    try {
      name = new URL(origin).hostname;
    } catch {
      return `Origin ${origin} is not a valid origin`;
    }
    const loopback = LOOPBACK_NAME.test(name.startsWith('[') || !name.includes(':') ? name : `[${name}]`);
    if (!loopback && !options.allowedOrigins.includes(origin)) return `Origin ${origin} is not allowed (serve.allowed_origins or --allow-origin adds one)`;
  } else if (origin === 'null') {
    return 'Origin null (a sandboxed or file page) is not allowed';
  }
  if (options.loopbackBound && (host === undefined || !LOOPBACK_NAME.test(hostName(host))))
    return `Host ${host ?? '(none)'} is not this machine's loopback name`;
  return undefined;
}

/** Compares a token in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer` header. */
export function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(.+)$/i.exec(header) : null;
  return match?.[1]?.trim();
}
