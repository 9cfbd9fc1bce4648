import { createHash } from 'node:crypto';
import { isMap, type Document, type YAMLMap } from 'yaml';
import { ToolError } from '../../core/errors.js';
import { notFound } from '../../core/suggest.js';
import { mapKeys } from './yaml-nodes.js';
import { CLIENT_NAME } from '../schema/serve-schema.js';
import { deadlineOf, graceUntil } from './token-life.js';

/**
 * Changes to `serve.clients` on a YAML document, for `editConfig`: the issued tokens of `mcpkit
 * clients add|rotate|remove`. Only a token's SHA-256 is ever written; the token itself is made and
 * shown by the command. Pure.
 */

/** What `clients add` sets besides the token: the routes, tool rules and limits of serve.clients.NAME. */
export interface IssuedClientSpec {
  views?: readonly string[];
  tools?: readonly string[];
  read_only?: boolean;
  rate?: string;
  max_concurrent?: number;
  /** When its token stops working (an ISO time: token-life.ts expiryOf). */
  token_expires?: string;
  /** Conditions on arguments, by tool glob (checked with the rest when the edit is written). */
  conditions?: Readonly<Record<string, string>>;
}

/** How `clients rotate` treats the old token and the new one's life. */
export interface RotateOptions {
  /** The old token keeps working this long (ms), then is refused; none: refused at once. */
  graceMs?: number;
  /** The new token's expiry (an ISO time), or never; none: the client's expiry stays, unless it has passed. */
  expires?: string | 'never';
  now: number;
}

export function clientNames(doc: Document): string[] {
  return mapKeys(doc.getIn(['serve', 'clients']));
}

export function requireClient(doc: Document, name: string): YAMLMap {
  const node = doc.getIn(['serve', 'clients', name]);
  if (isMap(node)) return node;
  throw notFound('client', name, clientNames(doc), 'Add one with: mcpkit clients add NAME');
}

/** A new client recognised by an issued token's digest; an existing name is a CONFLICT (rotate gives it a new token). */
export function addIssuedClient(doc: Document, name: string, spec: IssuedClientSpec, tokenSha256: string, now = Date.now()): void {
  if (!CLIENT_NAME.test(name))
    throw new ToolError('INVALID_INPUT', `"${name}" is not a client name: letters, digits, "_", "." and "-", up to 64, starting with a letter or digit.`, {
      details: { client: name },
    });
  if (doc.hasIn(['serve', 'clients', name])) {
    throw new ToolError('CONFLICT', `A client named "${name}" already exists.`, {
      details: { client: name },
      hint: `Give it a new token with: mcpkit clients rotate ${name}; or remove it first with: mcpkit clients remove ${name}`,
    });
  }
  requireViews(doc, spec.views ?? []);
  if (!isMap(doc.get('serve'))) doc.set('serve', doc.createNode({}));
  if (!isMap(doc.getIn(['serve', 'clients']))) doc.setIn(['serve', 'clients'], doc.createNode({}));
  pruneEndedGraces(doc, now);
  const entry: Record<string, unknown> = { token_sha256: tokenSha256 };
  if (spec.token_expires !== undefined) entry.token_expires = spec.token_expires;
  if (spec.views?.length) entry.views = [...spec.views];
  if (spec.tools?.length) entry.tools = [...spec.tools];
  if (spec.read_only) entry.read_only = true;
  if (spec.rate !== undefined) entry.rate = spec.rate;
  if (spec.max_concurrent !== undefined) entry.max_concurrent = spec.max_concurrent;
  if (spec.conditions) entry.conditions = { ...spec.conditions };
  doc.setIn(['serve', 'clients', name], doc.createNode(entry));
}

/** Refuses a route that is not a view of the config ("default" is /mcp). */
export function requireViews(doc: Document, views: readonly string[]): void {
  for (const view of views) {
    if (view !== 'default' && !doc.hasIn(['tool_views', view]))
      throw notFound('view', view, mapKeys(doc.get('tool_views')), '"default" is /mcp; create a view with: mcpkit view create NAME');
  }
}

/**
 * A client's token replaced by a new issued one: its written `token` (or `${VAR}`) or its old
 * digest goes, everything else stays. A client recognised only by OAuth has no token to replace.
 * With a grace, the old token's digest stays beside the new one until then (never past the old
 * token's own expiry).
 */
export function rotateClientToken(
  doc: Document,
  name: string,
  tokenSha256: string,
  options: RotateOptions = { now: Date.now() },
): { was: 'token' | 'token_sha256'; previous_until?: string; token_expires?: string } {
  const client = requireClient(doc, name);
  const was = client.has('token') ? 'token' : client.has('token_sha256') ? 'token_sha256' : undefined;
  if (!was) {
    throw new ToolError('CONFLICT', `Client "${name}" is recognised by its OAuth tokens (subject or claims), not by a bearer token: there is none to rotate.`, {
      details: { client: name },
      hint: `Its tokens come from the authorization server (serve.auth). To give it a bearer token instead: mcpkit clients remove ${name}, then mcpkit clients add ${name}`,
    });
  }
  const oldExpiry = client.get('token_expires') as string | undefined;
  const expires = newExpiry(name, oldExpiry, options);
  const previous = options.graceMs !== undefined ? previousDigest(name, client, was) : undefined;
  pruneEndedGraces(doc, options.now);
  // The digest takes the token's place in the entry, so the file reads as it did.
  if (was === 'token') {
    const at = client.items.findIndex((pair) => keyOf(pair) === 'token');
    client.items.splice(at, 1, doc.createPair('token_sha256', tokenSha256) as (typeof client.items)[number]);
  } else client.set('token_sha256', tokenSha256);
  if (expires === undefined) client.delete('token_expires');
  else placeAfter(doc, client, 'token_expires', expires, 'token_sha256');
  // A rotation without grace ends any earlier grace too: every token but the new one is refused.
  client.delete('previous_token_sha256');
  client.delete('previous_token_until');
  const until = previous !== undefined ? graceUntil(options.now, options.graceMs!, oldExpiry) : undefined;
  if (previous !== undefined && until !== undefined) {
    placeAfter(doc, client, 'previous_token_sha256', previous, expires !== undefined ? 'token_expires' : 'token_sha256');
    placeAfter(doc, client, 'previous_token_until', until, 'previous_token_sha256');
  }
  return { was, ...(until !== undefined ? { previous_until: until } : {}), ...(expires !== undefined ? { token_expires: expires } : {}) };
}

/** The new token's expiry: as given, else the client's while it lies ahead; one already past is refused (the new token would be born expired). */
function newExpiry(name: string, oldExpiry: string | undefined, options: RotateOptions): string | undefined {
  if (options.expires === 'never') return undefined;
  if (options.expires !== undefined) return options.expires;
  const at = deadlineOf(oldExpiry);
  if (at !== undefined && at <= options.now)
    throw new ToolError('INVALID_INPUT', `Client "${name}"'s token expired at ${oldExpiry}: the new one needs a life of its own.`, {
      details: { client: name },
      hint: `Give it one: mcpkit clients rotate ${name} --expires 30d (or --expires never).`,
    });
  return oldExpiry;
}

/** The SHA-256 of the token a rotation replaces: a written token's own, or the digest kept. */
function previousDigest(name: string, client: YAMLMap, was: 'token' | 'token_sha256'): string {
  const old = client.get(was) as string;
  if (was === 'token_sha256') return old;
  // The file holds ${VAR}: its value is serve's, not this shell's, so no digest of it can be trusted.
  if (old.includes('${'))
    throw new ToolError(
      'INVALID_INPUT',
      `Client "${name}"'s token is written as ${old}: --grace keeps the old token's SHA-256, which mcpkit cannot know for a variable.`,
      {
        details: { client: name },
        hint: `Rotate without --grace (the old token is refused at once), or keep ${old} set for serve until the agent has the new token and then rotate.`,
      },
    );
  return createHash('sha256').update(old).digest('hex');
}

/** A grace that has ended leaves nothing to keep: each clients edit takes it out of the file. */
export function pruneEndedGraces(doc: Document, now: number): void {
  const clients = doc.getIn(['serve', 'clients']);
  if (!isMap(clients)) return;
  for (const pair of clients.items) {
    const client = pair.value;
    if (!isMap(client)) continue;
    const until = deadlineOf(client.get('previous_token_until') as string | undefined);
    if (until === undefined || until > now) continue;
    client.delete('previous_token_sha256');
    client.delete('previous_token_until');
  }
}

const keyOf = (pair: { key: unknown }) => (pair.key as { value?: unknown })?.value ?? pair.key;

/** Sets a key of a mapping, a new one right after `after` (so the file reads in the schema's order). */
export function placeAfter(doc: Document, map: YAMLMap, key: string, value: unknown, after: string): void {
  if (map.has(key)) return map.set(key, value);
  const at = map.items.findIndex((pair) => keyOf(pair) === after);
  const pair = doc.createPair(key, value) as (typeof map.items)[number];
  if (at < 0) map.items.push(pair);
  else map.items.splice(at + 1, 0, pair);
}

export function removeClient(doc: Document, name: string, now = Date.now()): void {
  requireClient(doc, name);
  doc.deleteIn(['serve', 'clients', name]);
  pruneEndedGraces(doc, now);
}
