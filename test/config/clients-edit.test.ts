import { parseDocument, type Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import { addIssuedClient, removeClient, rotateClientToken } from '../../src/config/clients-edit.js';
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
