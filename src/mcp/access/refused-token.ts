import { routePath, type Route } from './route-access.js';

/** A refusal of a request, as route-auth.ts answers it: status, JSON body and headers. */
export interface Refusal {
  ok: false;
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Text fit for a quoted-string of WWW-Authenticate (RFC 9110 5.6.4): no quote, backslash or control character. */
function quotable(text: string): string {
  return text.replace(/["\\\p{Cc}]/gu, '');
}

/**
 * A client's token past its token_expires: 401 invalid_token (RFC 6750 3.1) whose description says
 * it expired and when, so the agent's person asks for a new token instead of checking the old one.
 */
export function expiredToken(at: string): Refusal {
  const description = `the token expired at ${at}`;
  return {
    ok: false,
    status: 401,
    body: { error: { code: 'AUTH_FAILED', message: `The bearer token expired at ${at}; ask for a new one (mcpkit clients rotate NAME).` } },
    headers: { 'www-authenticate': `Bearer error="invalid_token", error_description="${quotable(description)}"` },
  };
}

/**
 * A valid credential on a route it does not open: 403 insufficient_scope naming the MCP routes it
 * does open, so the person setting up the agent points it at one of them.
 */
export function insufficientScope(route: Route, opens: readonly string[]): Refusal {
  const where = opens.length ? `this token opens ${opens.join(', ')}` : 'this token opens no MCP route of this server';
  const message = `This credential does not open ${routePath(route)}; ${where}.`;
  return {
    ok: false,
    status: 403,
    body: { error: { code: 'FORBIDDEN', message } },
    headers: { 'www-authenticate': `Bearer error="insufficient_scope", error_description="${quotable(message)}"` },
  };
}
