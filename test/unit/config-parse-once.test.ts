import { describe, expect, it } from 'vitest';
import { configSchema, ONCE } from '../../src/config/schema/schema.js';

/** A config parsed without zod's compiled parsers (ONCE) reads exactly as with them: the same values, the same issues. */
describe('a config parsed once, without compiled parsers', () => {
  it.each([
    ['an empty config', {}],
    [
      'servers and a view',
      { mcp_servers: { a: { command: 'node', args: ['x'] }, b: { url: 'https://example.com/mcp' } }, tool_views: { v: { servers: ['a'] } } },
    ],
    ['a wrong type deep inside', { mcp_servers: { a: { command: 'node', args: 'x' } } }],
    ['an unknown key', { mcp_servers: { a: { command: 'node', comand: 'y' } } }],
    ['a serve section', { serve: { port: 'eighty' } }],
  ])('%s', (_name, config) => {
    const compiled = configSchema.safeParse(config);
    const once = configSchema.safeParse(config, ONCE);
    expect(once.success).toBe(compiled.success);
    expect(once.data).toEqual(compiled.data);
    expect(once.error?.issues).toEqual(compiled.error?.issues);
  });
});
