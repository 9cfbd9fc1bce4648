import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema/schema.js';

/** config validate says every problem at once: a cross-reference is found even where another part of the file is wrong. */
const paths = (raw: object) => {
  const parsed = configSchema.safeParse(raw);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.'));
};

describe('the schema reports cross-references beside other problems', () => {
  it.each([
    [
      'an unknown server in a view, beside a server without a command',
      { mcp_servers: { broken: { args: [] } }, tool_views: { v: { servers: ['nowhere'] } } },
      ['tool_views.v.servers.nowhere'],
    ],
    [
      'two clients with one token, beside a bad port',
      { serve: { port: 'eighty', clients: { a: { token: 't' }, b: { token: 't' } } } },
      ['serve.port', 'serve.clients.b.token'],
    ],
    [
      'an unknown view in a client, beside a bad exposure',
      { serve: { exposure: 'all', clients: { a: { token: 't', views: ['ghost'] } } } },
      ['serve.exposure', 'serve.clients.a.views.0'],
    ],
  ])('%s', (_what, raw, expected) => {
    expect(paths(raw)).toEqual(expect.arrayContaining(expected));
  });

  it('a file whose top level is not a mapping says only that', () => {
    expect(configSchema.safeParse([1, 2]).success).toBe(false);
  });
});
