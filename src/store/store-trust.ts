import { ToolError } from '../core/errors.js';

/**
 * What serve --http checks of serve.store before it trusts it: a key to sign with, strong enough,
 * and the warnings an operator should read (a store anyone on the host or the network may write
 * to). No I/O.
 */

/** The shortest serve.store.key taken: 32 characters (openssl rand -base64 32 gives 44). */
export const MIN_KEY_CHARS = 32;
/** Fewer different characters than this is a pattern, not a secret ("aaaa...", "1212..."). */
const MIN_DISTINCT_CHARS = 10;

export const MAKE_A_KEY =
  'Make one: openssl rand -base64 32 (or node -e "console.log(require(\'node:crypto\').randomBytes(32).toString(\'base64\'))"); give every replica the same one in MCPKIT_STORE_KEY, and set serve.store.key: "${MCPKIT_STORE_KEY}".';

/** Why a serve.store.key cannot be used, or undefined when it can. */
export function storeKeyProblem(key: string | undefined): string | undefined {
  if (key === undefined || key.trim() === '')
    return 'serve.store.key is not set: replicas sharing a store sign what they tell one another with it, and without it whoever can write to the store could act as any client.';
  if (key.length < MIN_KEY_CHARS) return `serve.store.key is ${key.length} characters long: it needs at least ${MIN_KEY_CHARS} random ones.`;
  if (new Set(key).size < MIN_DISTINCT_CHARS)
    return `serve.store.key has only ${new Set(key).size} different characters: it is a pattern, not a random secret.`;
  return undefined;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** What an operator is warned of at start about the store's address: no password, or no TLS off the machine. */
export function storeUrlWarnings(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const warnings: string[] = [];
  if (!parsed.password)
    warnings.push(
      'serve.store has no password: any process that reaches the store can fill or empty the limits and records it keeps (what confers authority is signed with serve.store.key). Set one (requirepass, or an ACL user) and use redis://:${REDIS_PASSWORD}@HOST:PORT/DB.',
    );
  if (parsed.protocol === 'redis:' && !LOOPBACK.has(parsed.hostname) && !parsed.hostname.startsWith('127.'))
    warnings.push(
      `serve.store is reached without TLS at ${parsed.hostname}: its password and what the replicas share cross the network in clear. Use rediss:// (TLS) off this machine.`,
    );
  return warnings;
}

/** Settings whose key is strong enough to sign with; else the error that says how to make one. */
export function withKey<T extends { key?: string | undefined }>(settings: T): T & { key: string } {
  const problem = storeKeyProblem(settings.key);
  if (problem !== undefined) throw new ToolError('CONFIG_INVALID', problem, { details: { field: 'serve.store.key' }, hint: MAKE_A_KEY });
  return settings as T & { key: string };
}
