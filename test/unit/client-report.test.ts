import { describe, expect, it } from 'vitest';
import { clientRows, decideFor, whoIs } from '../../src/mcp/http/client-report.js';
import { tokenId } from '../../src/mcp/access/route-access.js';
import type { McpkitConfig } from '../../src/config/schema/schema.js';

const config = {
  serve: {
    token: 'serve-t',
    clients: {
      alice: {
        token: 'alice-t',
        token_expires: '2027-01-01T00:00:00.000Z',
        previous_token_sha256: 'c'.repeat(64),
        previous_token_until: '2026-11-28T10:10:00.000Z',
        tools: ['+ everything__echo', { exclude: '*' }],
        rate: '5/s',
        credentials: { github: { env: { GITHUB_TOKEN: 'alice-github-secret' } }, docs: { headers: { Authorization: 'Bearer x' } } },
      },
      bob: { subject: 'user-7', read_only: true, views: ['research'], max_concurrent: 2 },
      ci: { claims: { azp: 'ci' } },
    },
  },
  tool_views: { research: { tokens: ['view-t'] } },
} as unknown as Pick<McpkitConfig, 'serve' | 'tool_views'>;

const none = { token_expires: null, grace_until: null, credentials: [] };

describe('clientRows', () => {
  it('shows each client, how it is recognised, its routes, rules, limits, expiry, grace and credential servers, never a token or a credential', () => {
    const rows = clientRows(config.serve);
    expect(rows).toEqual([
      {
        name: 'alice',
        recognised_by: 'token',
        routes: 'every route',
        tools: ['+ everything__echo', '- *'],
        read_only: false,
        rate: '5/s',
        max_concurrent: null,
        token_expires: '2027-01-01T00:00:00.000Z',
        grace_until: '2026-11-28T10:10:00.000Z',
        credentials: ['github', 'docs'],
      },
      { name: 'bob', recognised_by: 'subject', routes: ['research'], tools: [], read_only: true, rate: null, max_concurrent: 2, ...none },
      { name: 'ci', recognised_by: 'claims', routes: 'every route', tools: [], read_only: false, rate: null, max_concurrent: null, ...none },
    ]);
    expect(JSON.stringify(rows)).not.toContain('alice-t');
    expect(JSON.stringify(rows)).not.toContain('secret');
    expect(JSON.stringify(rows)).not.toContain('c'.repeat(64));
  });
});

describe('whoIs', () => {
  it.each([
    ['a client by name', 'alice', { kind: 'client', name: 'alice' }],
    ['a client by token', 'alice-t', { kind: 'client', name: 'alice' }],
    ['serve.token', 'serve-t', { kind: 'serve-token', name: 'token:serve' }],
    ["a view's token", 'view-t', { kind: 'view-token', name: tokenId('view-t'), views: ['research'] }],
    ['nobody', 'who?', { kind: 'unknown' }],
  ])('%s', (_what, given, want) => {
    expect(whoIs(config, given)).toMatchObject(want);
  });
});

describe('decideFor', () => {
  it.each([
    ['alice', { name: 'everything__echo', readOnly: true }, true, 'rule 1 "+ everything__echo" allows it'],
    ['alice', { name: 'everything__get-sum', readOnly: true }, false, 'rule 2 "- *" refuses it'],
    ['bob', { name: 'write_file', readOnly: false }, false, 'read_only: it does not declare readOnlyHint'],
    ['ci', { name: 'anything', readOnly: false }, true, 'the client has no rules'],
  ])('%s, %j', (client, tool, allowed, because) => {
    expect(decideFor(config.serve, client, tool)).toEqual({ allowed, because });
  });
});
