import type { Tool } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../../../src/tool/define.js';
import { buildCatalog, publishedUpstreamTool } from '../../../src/proxy/catalog/catalog.js';

const local = defineTool({
  name: 'config_show',
  group: 'config',
  command: { id: 'config show', examples: ['x'] },
  title: 't',
  description: 'd',
  input: z.strictObject({}),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async () => null,
});
const shaped = (name: string, upstreamName = name) => ({ upstreamName, tool: { name, inputSchema: { type: 'object' as const } } as Tool });

describe('buildCatalog', () => {
  it('keeps upstream names unprefixed with one server', () => {
    const catalog = buildCatalog([local], [{ server: 'everything', tools: [shaped('echo')] }]);
    expect(catalog.map((e) => [e.kind, e.name])).toEqual([
      ['local', 'config_show'],
      ['upstream', 'echo'],
    ]);
  });

  it('prefixes {server}__{tool} with several servers', () => {
    const catalog = buildCatalog(
      [],
      [
        { server: 'everything', tools: [shaped('echo')] },
        { server: 'memory', tools: [shaped('read_graph')] },
      ],
    );
    expect(catalog.map((e) => e.name)).toEqual(['everything__echo', 'memory__read_graph']);
  });

  it.each([
    ['.', ['a.t', 'b.t'].map((n) => n.replace('.', '_'))],
    [null, ['t', 't_2']],
  ])('honours separator %j', (separator, expected) => {
    const catalog = buildCatalog(
      [],
      [
        { server: 'a', tools: [shaped('t')] },
        { server: 'b', tools: [shaped('t')] },
      ],
      { separator },
    );
    expect(catalog.map((e) => e.name)).toEqual(expected);
  });

  it("never renames mcpkit's own tools: a clashing upstream tool gets a suffix", () => {
    const catalog = buildCatalog([local], [{ server: 'x', tools: [shaped('config_show')] }]);
    expect(catalog.map((e) => e.name)).toEqual(['config_show', 'config_show_2']);
  });

  it('routes by the upstream name even when the tool was renamed', () => {
    const [entry] = buildCatalog([], [{ server: 'gh', tools: [shaped('find_issues', 'search_issues')] }]);
    expect(entry).toMatchObject({ kind: 'upstream', name: 'find_issues', upstreamName: 'search_issues', server: 'gh' });
  });

  it('publishes the shaped tool under its exposed name, without task execution hints', () => {
    const [entry] = buildCatalog(
      [],
      [
        {
          server: 'a',
          tools: [
            {
              upstreamName: 'echo',
              tool: { name: 'echo', description: 'E', inputSchema: { type: 'object' }, execution: { taskSupport: 'forbidden' } } as Tool,
            },
          ],
        },
        { server: 'b', tools: [] },
      ],
    );
    expect(publishedUpstreamTool(entry as never)).toEqual({ name: 'a__echo', description: 'E', inputSchema: { type: 'object' } });
  });
});

describe('backoff', async () => {
  const { backoffDelay, attemptsAfterClose } = await import('../../../src/core/backoff.js');
  const policy = { baseMs: 100, maxMs: 1000, maxAttempts: 5, stableMs: 10_000 };
  it.each([
    [0, 100],
    [1, 200],
    [3, 800],
    [4, 1000],
    [5, undefined],
  ])('attempt %i waits %j ms', (attempt, expected) => {
    expect(backoffDelay(attempt, policy)).toBe(expected);
  });
  it('resets the count after a stable period', () => {
    expect(attemptsAfterClose(4, 9_999, policy)).toBe(4);
    expect(attemptsAfterClose(4, 10_000, policy)).toBe(0);
  });
});
