import { isMap, type Document, type YAMLMap } from 'yaml';
import { ToolError } from '../../core/errors.js';
import { notFound } from '../../core/suggest.js';
import { mapKeys } from './yaml-nodes.js';
import { placeAfter, pruneEndedGraces, requireClient, requireViews } from './clients-edit.js';

/**
 * `mcpkit clients set NAME`: a client's routes, rules, limits, expiry and own credentials changed in
 * place, its token untouched (so the agent holding it notices nothing but the new rules). Pure
 * changes to the YAML document, for `editConfig`, which validates the whole and writes nothing
 * when refused.
 */

/** What a client may have unset: back to its default (every route, every tool, no limit). */
export const UNSETTABLE = ['views', 'tools', 'rate', 'max_concurrent'] as const;
export type Unsettable = (typeof UNSETTABLE)[number];

/** One credential of a client at a server: an env variable of a stdio server or a header of a remote one. */
export interface CredentialKey {
  server: string;
  kind: 'env' | 'headers';
  name: string;
}

export interface ClientChange {
  views?: readonly string[];
  tools?: readonly string[];
  read_only?: boolean;
  rate?: string;
  max_concurrent?: number;
  /** An ISO time, or never (no expiry). */
  expires?: string | 'never';
  unset?: readonly Unsettable[];
  credentials?: readonly (CredentialKey & { value: string })[];
  remove_credentials?: readonly CredentialKey[];
  /** Keep a credential written as a plain value (else it must be ${VAR}, ${file:...} or ${keyring:...}). */
  literal_secrets?: boolean;
  /** Conditions on arguments by tool glob, each replacing the client's condition of that glob (the others stay). */
  conditions?: Readonly<Record<string, string>>;
}

/** The order of serve-schema.ts's client entry, for a key set anew: the file reads as `clients add` writes it. */
const ORDER = [
  'token',
  'token_sha256',
  'token_expires',
  'previous_token_sha256',
  'previous_token_until',
  'subject',
  'claims',
  'views',
  'tools',
  'read_only',
  'rate',
  'max_concurrent',
  'conditions',
];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP field name (RFC 9110 5.1: a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `SERVER.ENV=VALUE` or `SERVER.header:NAME=VALUE` (value omitted for --remove-credential). A
 * server name may hold dots, an env variable's none: the last dot (or `.header:`) divides them.
 */
export function parseCredentialFlag(text: string, withValue: boolean): CredentialKey & { value?: string } {
  const eq = text.indexOf('=');
  const key = withValue ? (eq < 0 ? text : text.slice(0, eq)) : text;
  const flag = withValue ? '--credential' : '--remove-credential';
  const shape = withValue ? 'SERVER.ENV=VALUE or SERVER.header:NAME=VALUE' : 'SERVER.ENV or SERVER.header:NAME';
  const bad = (why: string) =>
    new ToolError('INVALID_INPUT', `${flag} ${JSON.stringify(text)}: ${why}.`, {
      hint: `Write ${shape}, e.g. ${withValue ? "--credential 'github.GITHUB_TOKEN=${ALICE_GITHUB_TOKEN}'" : '--remove-credential github.GITHUB_TOKEN'}.`,
    });
  if (withValue && eq < 0) throw bad('it has no "=VALUE"');
  const header = key.lastIndexOf('.header:');
  const dot = header >= 0 ? header : key.lastIndexOf('.');
  const server = key.slice(0, dot);
  const name = header >= 0 ? key.slice(header + '.header:'.length) : key.slice(dot + 1);
  if (dot <= 0 || !name) throw bad('it names no server and variable');
  if (header >= 0 ? !HEADER_NAME.test(name) : !ENV_NAME.test(name))
    throw bad(`"${name}" is not ${header >= 0 ? 'an HTTP header name' : 'an environment variable name (letters, digits and "_")'}`);
  const value = withValue ? text.slice(eq + 1) : undefined;
  // A header value with a line break would start another header at the server.
  if (value !== undefined && /\p{Cc}/u.test(value)) throw bad('its value holds a control character (a line break, a tab)');
  return { server, kind: header >= 0 ? 'headers' : 'env', name, ...(value !== undefined ? { value } : {}) };
}

/** Whether the change changes anything: `clients set NAME` alone is a mistake, not a no-op. */
function isEmpty(change: ClientChange): boolean {
  const { literal_secrets: _, ...changes } = change;
  return Object.values(changes).every((v) => v === undefined || (Array.isArray(v) && v.length === 0));
}

export function setClient(doc: Document, name: string, change: ClientChange, now = Date.now()): void {
  const client = requireClient(doc, name);
  if (isEmpty(change))
    throw new ToolError('INVALID_INPUT', `Nothing to change for client "${name}".`, {
      hint: 'Give what to set: --view, --tools, --read-only, --rate, --max-concurrent, --expires, --condition, --credential, --remove-credential or --unset.',
    });
  for (const key of change.unset ?? []) {
    const set = { views: change.views, tools: change.tools, rate: change.rate, max_concurrent: change.max_concurrent }[key];
    if (set !== undefined) throw new ToolError('INVALID_INPUT', `--unset ${key} and a new ${key} at once: give one of them.`);
  }
  if (change.views) requireViews(doc, change.views);
  if (change.expires !== undefined && !client.has('token') && !client.has('token_sha256'))
    throw new ToolError('INVALID_INPUT', `Client "${name}" is recognised by its OAuth tokens, which carry their own expiry: --expires is for a bearer token.`, {
      details: { client: name },
    });
  pruneEndedGraces(doc, now);
  const put = (key: string, value: unknown) => placeAfter(doc, client, key, value, previousKey(client, key));
  if (change.views) put('views', doc.createNode([...change.views], { flow: true }));
  if (change.tools) put('tools', doc.createNode([...change.tools], { flow: true }));
  if (change.read_only === true) put('read_only', true);
  if (change.read_only === false) client.delete('read_only');
  if (change.rate !== undefined) put('rate', change.rate);
  if (change.max_concurrent !== undefined) put('max_concurrent', change.max_concurrent);
  if (change.conditions) {
    const had = (client.get('conditions') as { toJSON?: () => unknown } | undefined)?.toJSON?.() as Record<string, unknown> | undefined;
    put('conditions', doc.createNode({ ...(had ?? {}), ...change.conditions }));
  }
  if (change.expires === 'never') client.delete('token_expires');
  else if (change.expires !== undefined) put('token_expires', change.expires);
  for (const key of change.unset ?? []) client.delete(key);
  for (const given of change.credentials ?? []) setCredential(doc, client, given, change.literal_secrets === true);
  for (const gone of change.remove_credentials ?? []) removeCredential(client, name, gone);
}

/** The key a new one goes after: the last key of the schema's order before it that the entry has. */
function previousKey(client: YAMLMap, key: string): string {
  const before = ORDER.slice(0, ORDER.indexOf(key)).reverse();
  return before.find((k) => client.has(k)) ?? ORDER[0]!;
}

/** The transport a server of the file has: env goes to a stdio server (command), headers to a remote one (url). */
function serverKind(doc: Document, server: string): 'env' | 'headers' {
  const entry = doc.getIn(['mcp_servers', server]);
  if (!isMap(entry)) throw notFound('server', server, mapKeys(doc.get('mcp_servers')), 'Credentials are for a server of mcp_servers.');
  return entry.has('url') ? 'headers' : 'env';
}

function setCredential(doc: Document, client: YAMLMap, given: CredentialKey & { value: string }, literal: boolean): void {
  const kind = serverKind(doc, given.server);
  // A credential typed as itself sits in the file in plain text (and in argv, which ps shows).
  if (!literal && !given.value.includes('${'))
    throw new ToolError(
      'INVALID_INPUT',
      `The credential ${given.server}.${given.kind === 'env' ? '' : 'header:'}${given.name} is written as a plain value: the config would keep a secret in plain text.`,
      {
        details: { server: given.server },
        hint: "Write where serve reads it instead, in single quotes so the shell leaves it: '${VAR}', '${file:PATH}' or '${keyring:NAME}'; or give --literal-secrets to keep it as written.",
      },
    );
  if (kind !== given.kind)
    throw new ToolError(
      'INVALID_INPUT',
      `${given.server} is ${kind === 'env' ? 'a stdio server: its credentials are env variables (SERVER.ENV=VALUE)' : 'a remote server: its credentials are headers (SERVER.header:NAME=VALUE)'}.`,
      { details: { server: given.server } },
    );
  if (!isMap(client.get('credentials'))) client.set('credentials', doc.createNode({}));
  const credentials = client.get('credentials') as YAMLMap;
  if (!isMap(credentials.get(given.server))) credentials.set(given.server, doc.createNode({}));
  const server = credentials.get(given.server) as YAMLMap;
  if (!isMap(server.get(kind))) server.set(kind, doc.createNode({}));
  (server.get(kind) as YAMLMap).set(given.name, given.value);
}

/** A credential taken out; what it leaves empty goes with it. One the client lacks is NOT_FOUND, naming those it has. */
function removeCredential(client: YAMLMap, name: string, gone: CredentialKey): void {
  const credentials = client.get('credentials');
  const server = isMap(credentials) ? credentials.get(gone.server) : undefined;
  const values = isMap(server) ? server.get(gone.kind) : undefined;
  if (!isMap(values) || !values.has(gone.name)) {
    const have = credentialKeys(credentials);
    const wanted = gone.kind === 'env' ? `${gone.server}.${gone.name}` : `${gone.server}.header:${gone.name}`;
    throw notFound('credential', wanted, have, `Client "${name}" has ${have.length ? `these: ${have.join(', ')}` : 'no credentials'}.`);
  }
  values.delete(gone.name);
  if (!values.items.length) (server as YAMLMap).delete(gone.kind);
  if (!(server as YAMLMap).items.length) (credentials as YAMLMap).delete(gone.server);
  if (!(credentials as YAMLMap).items.length) client.delete('credentials');
}

/** A client's credentials as --remove-credential names them: SERVER.ENV and SERVER.header:NAME. */
function credentialKeys(credentials: unknown): string[] {
  if (!isMap(credentials)) return [];
  return mapKeys(credentials).flatMap((server) => {
    const entry = credentials.get(server);
    if (!isMap(entry)) return [];
    return [...mapKeys(entry.get('env')).map((n) => `${server}.${n}`), ...mapKeys(entry.get('headers')).map((n) => `${server}.header:${n}`)];
  });
}
