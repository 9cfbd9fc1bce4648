import { parseDocument, type Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseCredentialFlag, setClient, type ClientChange } from '../../src/config/edits/client-set.js';
import { codeOf } from '../helpers/errors.js';

const HASH = 'a'.repeat(64);
const BASE = `mcp_servers:
  github: { command: npx, args: [-y, github-mcp] }
  docs.internal: { url: https://docs.example.com/mcp }
tool_views:
  research: { servers: [github] }
serve:
  clients:
    # the release agent
    alice:
      token_sha256: ${HASH}
      views: [research]
      rate: 3/min
      credentials:
        github: { env: { GITHUB_TOKEN: "\${ALICE_GH}" } }
    sso:
      subject: user-7
`;
const doc = () => parseDocument(BASE);
const client = (d: Document, name = 'alice') => (d.toJS() as { serve: { clients: Record<string, Record<string, unknown>> } }).serve.clients[name]!;

describe('clients set on the YAML document', () => {
  it.each<[string, ClientChange, Record<string, unknown>]>([
    [
      'routes and limits, the token kept',
      { views: ['default'], max_concurrent: 2, read_only: true },
      { views: ['default'], rate: '3/min', max_concurrent: 2, read_only: true },
    ],
    ['an expiry', { expires: '2026-12-31T00:00:00.000Z' }, { token_expires: '2026-12-31T00:00:00.000Z' }],
    ['settings back to their defaults', { unset: ['views', 'rate'] }, { views: undefined, rate: undefined }],
    [
      'a header at a remote server and an env beside the one it has',
      {
        credentials: [
          { server: 'docs.internal', kind: 'headers', name: 'Authorization', value: 'Bearer ${file:/run/secrets/docs}' },
          { server: 'github', kind: 'env', name: 'GITHUB_HOST', value: '${keyring:gh-host}' },
        ],
      },
      {
        credentials: {
          github: { env: { GITHUB_TOKEN: '${ALICE_GH}', GITHUB_HOST: '${keyring:gh-host}' } },
          'docs.internal': { headers: { Authorization: 'Bearer ${file:/run/secrets/docs}' } },
        },
      },
    ],
    [
      'the last credential taken out, and what it leaves empty',
      { remove_credentials: [{ server: 'github', kind: 'env', name: 'GITHUB_TOKEN' }] },
      { credentials: undefined },
    ],
  ])('sets %s; the comments and the token stay', (_what, change, want) => {
    const d = doc();
    setClient(d, 'alice', change);
    expect(client(d)).toMatchObject({ token_sha256: HASH, ...Object.fromEntries(Object.entries(want).filter(([, v]) => v !== undefined)) });
    for (const [key, value] of Object.entries(want)) if (value === undefined) expect(client(d)).not.toHaveProperty(key);
    expect(d.toString()).toContain('# the release agent');
  });

  it('writes a new key where the schema reads it: token_expires after the digest', () => {
    const d = doc();
    setClient(d, 'alice', { expires: '2026-12-31T00:00:00.000Z', read_only: true });
    expect(Object.keys(client(d))).toEqual(['token_sha256', 'token_expires', 'views', 'read_only', 'rate', 'credentials']);
    setClient(d, 'alice', { expires: 'never', read_only: false });
    expect(Object.keys(client(d))).toEqual(['token_sha256', 'views', 'rate', 'credentials']);
  });

  it.each<[string, string, ClientChange, string]>([
    ['an unknown client', 'alise', { rate: '1/s' }, 'NOT_FOUND'],
    ['nothing to change', 'alice', {}, 'INVALID_INPUT'],
    ['a view the config lacks', 'alice', { views: ['reserch'] }, 'NOT_FOUND'],
    ['an expiry for an OAuth client', 'sso', { expires: '2026-12-31T00:00:00.000Z' }, 'INVALID_INPUT'],
    ['a rate and its unset at once', 'alice', { rate: '1/s', unset: ['rate'] }, 'INVALID_INPUT'],
    ['a server the config lacks', 'alice', { credentials: [{ server: 'gihub', kind: 'env', name: 'X', value: '${X}' }] }, 'NOT_FOUND'],
    ['a header for a stdio server', 'alice', { credentials: [{ server: 'github', kind: 'headers', name: 'X', value: '${X}' }] }, 'INVALID_INPUT'],
    ['an env for a remote server', 'alice', { credentials: [{ server: 'docs.internal', kind: 'env', name: 'X', value: '${X}' }] }, 'INVALID_INPUT'],
    ['a secret written as itself', 'alice', { credentials: [{ server: 'github', kind: 'env', name: 'GITHUB_TOKEN', value: 'ghp_plain' }] }, 'INVALID_INPUT'],
    ['a credential it does not have', 'alice', { remove_credentials: [{ server: 'github', kind: 'env', name: 'NOPE' }] }, 'NOT_FOUND'],
  ])('refuses %s, changing nothing', (_what, name, change, code) => {
    const d = doc();
    expect(codeOf(() => setClient(d, name, change))).toBe(code);
    expect(d.toString()).toBe(doc().toString());
  });

  it('keeps a plain value when asked to', () => {
    const d = doc();
    setClient(d, 'alice', { credentials: [{ server: 'github', kind: 'env', name: 'GITHUB_HOST', value: 'github.example.com' }], literal_secrets: true });
    expect(client(d).credentials).toMatchObject({ github: { env: { GITHUB_HOST: 'github.example.com' } } });
  });
});

describe('--credential and --remove-credential', () => {
  it.each<[string, boolean, ReturnType<typeof parseCredentialFlag>]>([
    ['github.GITHUB_TOKEN=${A}', true, { server: 'github', kind: 'env', name: 'GITHUB_TOKEN', value: '${A}' }],
    [
      'docs.internal.header:Authorization=Bearer ${file:/s/x=y}',
      true,
      { server: 'docs.internal', kind: 'headers', name: 'Authorization', value: 'Bearer ${file:/s/x=y}' },
    ],
    ['my.server.TOKEN=', true, { server: 'my.server', kind: 'env', name: 'TOKEN', value: '' }],
    ['github.GITHUB_TOKEN', false, { server: 'github', kind: 'env', name: 'GITHUB_TOKEN' }],
    ['docs.header:X-Api-Key', false, { server: 'docs', kind: 'headers', name: 'X-Api-Key' }],
  ])('%s', (text, withValue, want) => expect(parseCredentialFlag(text, withValue)).toEqual(want));

  it.each<[string, boolean]>([
    ['github.GITHUB_TOKEN', true],
    ['GITHUB_TOKEN=x', true],
    ['.X=y', true],
    ['github.BAD-NAME=x', true],
    ['docs.header:Bad Name=x', true],
    ['docs.header:X=a\r\nInjected: yes', true],
    ['github.', false],
  ])('refuses %j', (text, withValue) => expect(codeOf(() => parseCredentialFlag(text, withValue))).toBe('INVALID_INPUT'));
});

describe('clients set --condition', () => {
  it('adds a condition by glob, and a second set replaces that glob only', () => {
    const d = doc();
    setClient(d, 'alice', { conditions: { 'github__*': 'size(json(args)) <= 1000', github__create_issue: 'args.repo == "acme/app"' } });
    setClient(d, 'alice', { conditions: { github__create_issue: 'args.repo in ["acme/app", "acme/docs"]' } });
    expect(client(d).conditions).toEqual({ 'github__*': 'size(json(args)) <= 1000', github__create_issue: 'args.repo in ["acme/app", "acme/docs"]' });
    expect(client(d).token_sha256).toBe(HASH);
  });
});
