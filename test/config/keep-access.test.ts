import { describe, expect, it } from 'vitest';
import { keepLastGoodAccess } from '../../src/config/keep-access.js';
import { configSchema, type McpkitConfig } from '../../src/config/schema/schema.js';

const config = (data: object, unusable?: Record<string, string[]>): McpkitConfig => ({ ...configSchema.parse(data), ...(unusable ? { unusable } : {}) });

describe('keepLastGoodAccess', () => {
  const before = config({ serve: { token: 'old-token' }, tool_views: { a: { tokens: ['va'] } } });

  it.each<[string, McpkitConfig, string[], (c: McpkitConfig) => void]>([
    ['a usable new config is taken as it is', config({ serve: { token: 'new' } }), [], (c) => expect(c.serve.token).toBe('new')],
    [
      'an unusable serve section keeps the old one',
      config({ tool_views: { a: { tokens: ['va'] } } }, { serve: ['serve.token: bad'] }),
      ['serve'],
      (c) => {
        expect(c.serve.token).toBe('old-token');
        expect(c.unusable).toEqual({});
      },
    ],
    [
      'an unusable view that was served keeps its old entry',
      config({ serve: { token: 'old-token' }, tool_views: { a: {} } }, { 'tool_views.a': ['tool_views.a.tokens.0: unset'] }),
      ['tool_views.a'],
      (c) => expect(c.tool_views.a!.tokens).toEqual(['va']),
    ],
    [
      'a new view that cannot be used stays set aside (not served at all)',
      config({ serve: { token: 'old-token' }, tool_views: { a: { tokens: ['va'] }, b: {} } }, { 'tool_views.b': ['tool_views.b: bad'] }),
      [],
      (c) => expect(c.unusable).toEqual({ 'tool_views.b': ['tool_views.b: bad'] }),
    ],
    [
      'other parts set aside stay set aside',
      config({ serve: { token: 'old-token' } }, { 'mcp_servers.x': ['mcp_servers.x.url: bad'], serve: ['serve.port: bad'] }),
      ['serve'],
      (c) => expect(c.unusable).toEqual({ 'mcp_servers.x': ['mcp_servers.x.url: bad'] }),
    ],
  ])('%s', (_what, next, kept, check) => {
    const out = keepLastGoodAccess(before, next);
    expect(Object.keys(out.kept)).toEqual(kept);
    check(out.config);
  });

  it('a serve section broken already stays as it was (there is no last good one to keep)', () => {
    const broken = config({}, { serve: ['serve.token: bad'] });
    expect(keepLastGoodAccess(broken, config({}, { serve: ['serve.token: worse'] })).kept).toEqual({});
  });
});
