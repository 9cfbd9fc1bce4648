import { isMap, type Document, type YAMLMap } from 'yaml';
import { ToolError } from '../core/errors.js';
import { notFound } from '../core/suggest.js';
import { mapKeys } from './yaml-nodes.js';
import { CLIENT_NAME } from './serve-schema.js';

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
  /** Conditions on arguments, by tool glob (checked with the rest when the edit is written). */
  conditions?: Readonly<Record<string, string>>;
}

export function clientNames(doc: Document): string[] {
  return mapKeys(doc.getIn(['serve', 'clients']));
}

function requireClient(doc: Document, name: string): YAMLMap {
  const node = doc.getIn(['serve', 'clients', name]);
  if (isMap(node)) return node;
  throw notFound('client', name, clientNames(doc), 'Add one with: mcpkit clients add NAME');
}

/** A new client recognised by an issued token's digest; an existing name is a CONFLICT (rotate gives it a new token). */
export function addIssuedClient(doc: Document, name: string, spec: IssuedClientSpec, tokenSha256: string): void {
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
  for (const view of spec.views ?? []) {
    if (view !== 'default' && !doc.hasIn(['tool_views', view]))
      throw notFound('view', view, mapKeys(doc.get('tool_views')), '"default" is /mcp; create a view with: mcpkit view create NAME');
  }
  if (!isMap(doc.get('serve'))) doc.set('serve', doc.createNode({}));
  if (!isMap(doc.getIn(['serve', 'clients']))) doc.setIn(['serve', 'clients'], doc.createNode({}));
  const entry: Record<string, unknown> = { token_sha256: tokenSha256 };
  if (spec.views?.length) entry.views = [...spec.views];
  if (spec.tools?.length) entry.tools = [...spec.tools];
  if (spec.read_only) entry.read_only = true;
  if (spec.rate !== undefined) entry.rate = spec.rate;
  if (spec.max_concurrent !== undefined) entry.max_concurrent = spec.max_concurrent;
  if (spec.conditions) entry.conditions = { ...spec.conditions };
  doc.setIn(['serve', 'clients', name], doc.createNode(entry));
}

/**
 * A client's token replaced by a new issued one: its written `token` (or `${VAR}`) or its old
 * digest goes, everything else stays. A client recognised only by OAuth has no token to replace.
 */
export function rotateClientToken(doc: Document, name: string, tokenSha256: string): { was: 'token' | 'token_sha256' } {
  const client = requireClient(doc, name);
  const was = client.has('token') ? 'token' : client.has('token_sha256') ? 'token_sha256' : undefined;
  if (!was) {
    throw new ToolError('CONFLICT', `Client "${name}" is recognised by its OAuth tokens (subject or claims), not by a bearer token: there is none to rotate.`, {
      details: { client: name },
      hint: `Its tokens come from the authorization server (serve.auth). To give it a bearer token instead: mcpkit clients remove ${name}, then mcpkit clients add ${name}`,
    });
  }
  // The digest takes the token's place in the entry, so the file reads as it did.
  if (was === 'token') {
    const at = client.items.findIndex((pair) => (pair.key as { value?: unknown })?.value === 'token' || pair.key === 'token');
    client.items.splice(at, 1, doc.createPair('token_sha256', tokenSha256) as (typeof client.items)[number]);
  } else client.set('token_sha256', tokenSha256);
  return { was };
}

export function removeClient(doc: Document, name: string): void {
  requireClient(doc, name);
  doc.deleteIn(['serve', 'clients', name]);
}
