import { timingSafeEqual } from 'node:crypto';

/** What test/conformance/forward.sh hands the client host: its client kind, the server URL, its folder and environment. */
export interface ForwardRequest {
  kind: 'plain' | 'auth' | 'auto';
  url: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** More than a forward sends (its environment is a few kilobytes): refused rather than read on. */
const MAX_REQUEST = 1 << 20;
const KINDS = new Set(['plain', 'auth', 'auto']);
/** How far past the token's length its ending NUL may come: further, and the sender is no forward. */
const TOKEN_SLACK = 100;

/**
 * A forward's request, read from what it sent so far: fields ended by NUL (token, kind, URL,
 * folder, then its environment as `env -0` prints it), closed by an empty field. 'incomplete':
 * wait for more; 'refused': not the token (or not a forward's request), answer nothing.
 */
export function forwardRequest(sent: string, token: string): ForwardRequest | 'incomplete' | 'refused' {
  if (sent.length > MAX_REQUEST) return 'refused';
  // A sender that never ends its token would be read on to MAX_REQUEST, as many as connect.
  if (!sent.includes('\0')) return sent.length > token.length + TOKEN_SLACK ? 'refused' : 'incomplete';
  const fields = sent.split('\0');
  // The token is judged as soon as it is whole, before the rest is waited for.
  if (fields.length > 1 && !sameToken(fields[0]!, token)) return 'refused';
  const end = fields.indexOf('', 4);
  if (end < 0 || end === fields.length - 1) return 'incomplete';
  const [, kind, url, cwd] = fields;
  if (!KINDS.has(kind!) || !url || !cwd) return 'refused';
  const env: NodeJS.ProcessEnv = {};
  for (const entry of fields.slice(4, end)) {
    const at = entry.indexOf('=');
    if (at <= 0) return 'refused';
    env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return { kind: kind as ForwardRequest['kind'], url, cwd, env };
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
