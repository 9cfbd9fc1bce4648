import { parseDocument, type Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import { addIssuedClient, pruneEndedGraces, removeClient, rotateClientToken } from '../../src/config/edits/clients-edit.js';
import { codeOf } from '../helpers/errors.js';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);
const BASE = `tool_views:
  research: { servers: [] }
serve:
  port: 8100
  clients:
    # the old way
    alice:
      token: \${ALICE_TOKEN}
      views: [research]
      rate: 3/min
    sso:
      subject: user-7
`;
const doc = () => parseDocument(BASE);
const clients = (d: Document) => (d.toJS() as { serve: { clients: Record<string, Record<string, unknown>> } }).serve.clients;

describe('issued clients on the YAML document', () => {
  it.each<[string, Parameters<typeof addIssuedClient>[2], Record<string, unknown>]>([
    ['every route, no rules', {}, { token_sha256: HASH_A }],
    ['a view and /mcp', { views: ['research', 'default'] }, { token_sha256: HASH_A, views: ['research', 'default'] }],
    [
      'rules and limits in the order the schema reads them',
      { tools: ['+ gh__list_*', '- *'], read_only: true, rate: '30/min', max_concurrent: 2 },
      { token_sha256: HASH_A, tools: ['+ gh__list_*', '- *'], read_only: true, rate: '30/min', max_concurrent: 2 },
    ],
  ])('adds a client with %s, keeping the others and their comments', (_what, spec, want) => {
    const d = doc();
    addIssuedClient(d, 'bob', spec, HASH_A);
    expect(clients(d).bob).toEqual(want);
    expect(Object.keys(clients(d))).toEqual(['alice', 'sso', 'bob']);
    expect(d.toString()).toContain('# the old way');
  });

  it('makes serve and serve.clients when the file has neither', () => {
    const d = parseDocument('mcp_servers: {}\n');
    addIssuedClient(d, 'bob', {}, HASH_A);
    expect(d.toJS()).toEqual({ mcp_servers: {}, serve: { clients: { bob: { token_sha256: HASH_A } } } });
  });

  it.each<[string, string, Parameters<typeof addIssuedClient>[2], string]>([
    ['a name taken', 'alice', {}, 'CONFLICT'],
    ['a name that is not one', 'no spaces', {}, 'INVALID_INPUT'],
    ['a view the config lacks', 'bob', { views: ['reserch'] }, 'NOT_FOUND'],
  ])('refuses %s, changing nothing', (_what, name, spec, code) => {
    const d = doc();
    expect(codeOf(() => addIssuedClient(d, name, spec, HASH_A))).toBe(code);
    expect(d.toString()).toBe(doc().toString());
  });

  it('rotates a written token into a digest in its place, and a digest into a new one; the rest stays', () => {
    const d = doc();
    expect(rotateClientToken(d, 'alice', HASH_A)).toEqual({ was: 'token' });
    expect(clients(d).alice).toEqual({ token_sha256: HASH_A, views: ['research'], rate: '3/min' });
    expect(Object.keys(clients(d).alice!)[0]).toBe('token_sha256');
    expect(rotateClientToken(d, 'alice', HASH_B)).toEqual({ was: 'token_sha256' });
    expect(clients(d).alice!.token_sha256).toBe(HASH_B);
  });

  it.each<[string, string, string]>([
    ['a client of OAuth', 'sso', 'CONFLICT'],
    ['an unknown client', 'alise', 'NOT_FOUND'],
  ])('refuses to rotate %s', (_what, name, code) => {
    expect(codeOf(() => rotateClientToken(doc(), name, HASH_A))).toBe(code);
  });

  it('removes a client, and says which names there are for one it lacks', () => {
    const d = doc();
    removeClient(d, 'alice');
    expect(Object.keys(clients(d))).toEqual(['sso']);
    expect(codeOf(() => removeClient(d, 'alice'))).toBe('NOT_FOUND');
  });
});

describe('tokens with a life on the YAML document', () => {
  const NOW = Date.parse('2026-11-28T12:00:00.000Z');
  const LATER = '2026-12-28T12:00:00.000Z';

  it('adds a client whose token expires, the time beside its digest', () => {
    const d = doc();
    addIssuedClient(d, 'bob', { views: ['research'], token_expires: LATER }, HASH_A, NOW);
    expect(clients(d).bob).toEqual({ token_sha256: HASH_A, token_expires: LATER, views: ['research'] });
    expect(Object.keys(clients(d).bob!)).toEqual(['token_sha256', 'token_expires', 'views']);
  });

  it('rotates with a grace: the old digest is kept until then, and a later rotation without one drops it', () => {
    const d = doc();
    addIssuedClient(d, 'bob', {}, HASH_A, NOW);
    expect(rotateClientToken(d, 'bob', HASH_B, { graceMs: 600_000, now: NOW })).toEqual({ was: 'token_sha256', previous_until: '2026-11-28T12:10:00.000Z' });
    expect(clients(d).bob).toEqual({ token_sha256: HASH_B, previous_token_sha256: HASH_A, previous_token_until: '2026-11-28T12:10:00.000Z' });
    rotateClientToken(d, 'bob', 'c'.repeat(64), { now: NOW });
    expect(clients(d).bob).toEqual({ token_sha256: 'c'.repeat(64) });
  });

  it("a written token's grace keeps its SHA-256; a ${VAR}'s cannot be known and is refused, changing nothing", () => {
    const d = parseDocument('serve:\n  clients:\n    w: { token: plain-secret }\n');
    rotateClientToken(d, 'w', HASH_B, { graceMs: 1_000, now: NOW });
    // sha256sum of "plain-secret".
    expect(clients(d).w!.previous_token_sha256).toBe('cc0e7608b73ea73b08fd28b582c21ba4ce5a0b1c9202bf7d2dcc85366205b622');
    const v = doc();
    expect(codeOf(() => rotateClientToken(v, 'alice', HASH_B, { graceMs: 1_000, now: NOW }))).toBe('INVALID_INPUT');
    expect(v.toString()).toBe(doc().toString());
  });

  it("keeps the client's expiry for the new token, takes a new one, and refuses to inherit one already past", () => {
    const d = doc();
    addIssuedClient(d, 'bob', { token_expires: '2026-11-28T12:05:00.000Z' }, HASH_A, NOW);
    // The grace stops at the old token's own expiry.
    expect(rotateClientToken(d, 'bob', HASH_B, { graceMs: 600_000, now: NOW })).toMatchObject({
      previous_until: '2026-11-28T12:05:00.000Z',
      token_expires: '2026-11-28T12:05:00.000Z',
    });
    const later = NOW + 3_600_000;
    const before = d.toString();
    expect(codeOf(() => rotateClientToken(d, 'bob', HASH_A, { now: later }))).toBe('INVALID_INPUT');
    expect(d.toString()).toBe(before);
    expect(rotateClientToken(d, 'bob', HASH_A, { now: later, expires: LATER })).toMatchObject({ token_expires: LATER });
    rotateClientToken(d, 'bob', HASH_B, { now: later, expires: 'never' });
    expect(clients(d).bob).toEqual({ token_sha256: HASH_B });
  });

  it('an ended grace leaves the file at the next edit', () => {
    const d = doc();
    addIssuedClient(d, 'bob', {}, HASH_A, NOW);
    rotateClientToken(d, 'bob', HASH_B, { graceMs: 1_000, now: NOW });
    pruneEndedGraces(d, NOW + 999);
    expect(clients(d).bob!.previous_token_sha256).toBe(HASH_A);
    removeClient(d, 'alice', NOW + 1_000);
    expect(clients(d).bob).toEqual({ token_sha256: HASH_B });
  });
});
