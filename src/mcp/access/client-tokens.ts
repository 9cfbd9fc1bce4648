import { createHash } from 'node:crypto';
import { sameSecret } from './http-guards.js';

/**
 * Which named client a bearer token stands for, now: its token or the digest of an issued one,
 * refused once past `token_expires`; and, after `clients rotate --grace`, the old token's digest
 * until `previous_token_until`, then nothing (as a removed token). Pure: the time is given. Every
 * request goes through here, so a time is parsed only for the client a token matched.
 */

/** How a client's tokens are written (serve.clients.NAME). */
export interface ClientTokens {
  token?: string;
  /** The SHA-256 (hex) of its token, for a token mcpkit issued (the config holds no token then). */
  token_sha256?: string;
  /** When its token stops working (an ISO time); none: never. */
  token_expires?: string;
  /** The digest of the token a rotation with grace replaced, working until previous_token_until. */
  previous_token_sha256?: string;
  previous_token_until?: string;
}

export type TokenMatch<C> = { client: C; expired?: undefined } | { client: C; expired: string };

/** The SHA-256 of a token, in hex: what serve.clients.NAME.token_sha256 holds. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Whether an ISO time has come (text that is no time counts as come: fail closed). */
function passed(iso: string, now: number): boolean {
  const at = Date.parse(iso);
  return Number.isNaN(at) || now >= at;
}

/**
 * The client whose token this is, and whether that token expired (then `expired` is when). A
 * rotated-out token within its grace is its client's; past it, nobody's. Constant-time compares;
 * the digest is taken once, and only when some client has one.
 */
export function matchClientToken<C extends ClientTokens>(clients: readonly C[] | undefined, token: string, now: number): TokenMatch<C> | undefined {
  if (!clients?.length) return undefined;
  let digest: string | undefined;
  const digestOf = () => (digest ??= tokenDigest(token));
  for (const client of clients) {
    const current =
      client.token !== undefined ? sameSecret(token, client.token) : client.token_sha256 !== undefined && sameSecret(digestOf(), client.token_sha256);
    if (current) {
      if (client.token_expires !== undefined && passed(client.token_expires, now))
        return { client, expired: new Date(Date.parse(client.token_expires) || 0).toISOString() };
      return { client };
    }
    if (client.previous_token_sha256 !== undefined && sameSecret(digestOf(), client.previous_token_sha256)) {
      if (client.previous_token_until !== undefined && !passed(client.previous_token_until, now)) return { client };
    }
  }
  return undefined;
}

/** The earliest instant after `now` at which some client's token expires or a grace ends: when open sessions must be checked again. */
export function nextTokenDeadline(clients: readonly ClientTokens[] | undefined, now: number): number | undefined {
  let next: number | undefined;
  for (const client of clients ?? []) {
    for (const iso of [client.token_expires, client.previous_token_until]) {
      const at = iso === undefined ? Number.NaN : Date.parse(iso);
      if (at > now && (next === undefined || at < next)) next = at;
    }
  }
  return next;
}
