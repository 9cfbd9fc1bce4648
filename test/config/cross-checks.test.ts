import { describe, expect, it } from 'vitest';
import { crossCheckProblems } from '../../src/config/check/cross-checks.js';

const known = { groups: ['retrieve', 'registry'], tools: ['search', 'list_dir'] };
const base = { mcp_servers: { gh: {} }, serve: {}, tool_views: {}, composite_tools: {} };

describe('crossCheckProblems: names a valid config gives that name nothing', () => {
  it.each([
    ['nothing named', {}, []],
    ['serve.groups', { serve: { groups: ['retrieve', 'retreive'] } }, ['serve.groups: no mcpkit tool group is named "retreive"']],
    ["a view's group", { tool_views: { v: { groups: ['registy'] } } }, ['tool_views.v.groups: no mcpkit tool group is named "registy"']],
    ["a view's tool", { tool_views: { v: { tools: ['search', 'nosuch'] } } }, ['tool_views.v.tools: no mcpkit tool or composite tool is named "nosuch"']],
    ["a view's composite tool", { tool_views: { v: { tools: ['both'] } }, composite_tools: { both: { chain: [{ tool: 'search' }] } } }, []],
    [
      'composite steps',
      { composite_tools: { c: { chain: [{ tool: 'gh.search_code' }, { tool: 'gl.search' }, { tool: 'serch' }], parallel: { p: { tool: 'list_dir' } } } } },
      ['composite_tools.c.chain.1.tool: "gl.search" names the server "gl"', 'composite_tools.c.chain.2.tool: "serch" is no mcpkit tool'],
    ],
  ] as [string, object, string[]][])('%s', (_label, part, expected) => {
    const problems = crossCheckProblems({ ...base, ...part } as Parameters<typeof crossCheckProblems>[0], known).map((p) => `${p.path}: ${p.message}`);
    expect(problems).toHaveLength(expected.length);
    expected.forEach((start, i) => expect(problems[i]).toContain(start));
  });
});
