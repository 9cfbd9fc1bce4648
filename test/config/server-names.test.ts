import { describe, expect, it } from 'vitest';
import { inspectConfigText } from '../../src/config/load.js';
import { buildCatalog } from '../../src/proxy/catalog/catalog.js';

/**
 * A published name has one reading: `SERVER__TOOL` with no "__" in SERVER, and no two servers
 * published under one prefix. Otherwise adding a server above another in the file moved a name to
 * it (server a__b's tool c and server a's tool b__c both wanted a__b__c; the first in the file
 * took it, the other became a__b__c_2).
 */
const load = (servers: Record<string, unknown>) => inspectConfigText({ path: '/x/mcpkit.yaml', source: 'flag' }, JSON.stringify({ mcp_servers: servers }), {});

describe('server names that would give a published name two readings', () => {
  it.each([
    ['a__b', ['a__b'], /may not contain \\?"__/],
    ['a.b beside a_b', ['a.b', 'a_b'], /published under one prefix/],
    ['x.y beside x-y (two prefixes: x_y and x-y)', ['x.y', 'x-y'], null],
  ])('%s', (_what, names, problem) => {
    const loaded = load(Object.fromEntries(names.map((n) => [n, { url: 'https://example.com/mcp' }])));
    const text = JSON.stringify(loaded.problems ?? []) + JSON.stringify(loaded.config?.unusable ?? {});
    if (problem) expect(text).toMatch(problem);
    else expect(Object.keys(loaded.config?.mcp_servers ?? {}).sort()).toEqual([...names].sort());
  });

  it('the catalog: a name never points at another server when one is added above it', () => {
    const tools = (server: string, names: string[]) => ({
      server,
      tools: names.map((n) => ({ upstreamName: n, tool: { name: n, inputSchema: { type: 'object' } } })),
    });
    const before = buildCatalog([], [tools('ab', ['c']), tools('x', ['y'])] as never);
    const after = buildCatalog([], [tools('a', ['b__c']), tools('ab', ['c']), tools('x', ['y'])] as never);
    const owner = (catalog: typeof before, name: string) => catalog.find((e) => e.name === name);
    expect(owner(before, 'ab__c')).toMatchObject({ server: 'ab' });
    expect(owner(after, 'ab__c')).toMatchObject({ server: 'ab' });
    expect(owner(after, 'a__b__c')).toMatchObject({ server: 'a' });
  });
});
