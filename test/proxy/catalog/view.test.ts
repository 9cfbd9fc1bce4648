import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema/schema.js';
import { defineTool } from '../../../src/tool/define.js';
import { resolveView, viewPrefixes } from '../../../src/proxy/catalog/view.js';

const local = (name: string, group: string) =>
  defineTool({
    name,
    group,
    command: { id: `${group} ${name.split('_')[1]}`, examples: ['x'] },
    title: name,
    description: name,
    input: z.strictObject({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async () => null,
  });
const LOCAL = [local('config_show', 'config'), local('config_path', 'config'), local('server_list', 'server')];
const config = configSchema.parse({
  mcp_servers: { gh: { url: 'https://example.com/mcp' }, mem: { command: 'x' }, off: { command: 'y', disabled: true } },
  tool_views: {
    research: { description: 'R', exposure: 'search', servers: ['gh', 'off'], groups: ['config'], separator: '.' },
    picky: { servers: { mem: { tools: { read_graph: {} } } }, tools: ['server_list'], tokens: ['t1'] },
    empty: {},
    typo: { groups: ['nope'], tools: ['missing_tool'] },
  },
});

describe('resolveView', () => {
  it('the default view: every enabled server and all local tools, under auto with the default budget', () => {
    const v = resolveView(config, undefined, LOCAL);
    expect(v).toMatchObject({ exposure: 'auto', tokenBudget: 4000, pins: [], local: LOCAL });
    expect(v.servers.map((s) => s.name)).toEqual(['gh', 'mem']);
  });

  it.each([
    ['research', { name: 'research', description: 'R', exposure: 'search', separator: '.' }, ['gh'], ['config_show', 'config_path']],
    ['picky', { name: 'picky', exposure: 'auto', tokens: ['t1'] }, ['mem'], ['server_list']],
    ['empty', { name: 'empty', exposure: 'auto', tokenBudget: 4000 }, [], []],
  ])('%s', (name, fields, servers, locals) => {
    const v = resolveView(config, name, LOCAL);
    expect(v).toMatchObject(fields);
    expect(v.servers.map((s) => s.name)).toEqual(servers);
    expect(v.local.map((t) => t.name)).toEqual(locals);
  });

  it.each([
    // what the config says, what serve's flags say -> exposure, budget, pins
    ["a view's own settings", { exposure: 'direct', token_budget: 900, pin: ['a'] }, {}, {}, ['direct', 900, ['a']]],
    ['serve.* for a view that sets none', {}, { exposure: 'search', token_budget: 1200, pin: ['p'] }, {}, ['search', 1200, []]],
    ["a view's own over serve.*", { exposure: 'direct' }, { exposure: 'search', token_budget: 1200 }, {}, ['direct', 1200, []]],
    [
      'serve --exposure and --token-budget over both',
      { exposure: 'direct', token_budget: 900 },
      { exposure: 'auto' },
      { exposure: 'search', tokenBudget: 700 },
      ['search', 700, []],
    ],
  ] as const)('exposure: %s', (_label, view, serve, policy, [exposure, budget, pins]) => {
    const c = configSchema.parse({ tool_views: { v: view }, serve });
    expect(resolveView(c, 'v', LOCAL, { readOnly: false, ...policy })).toMatchObject({ exposure, tokenBudget: budget, pins });
  });

  it.each([
    // view -> whether its servers' tools are published as server__tool
    ['the default view, though only gh and mem are enabled', undefined, true],
    ['research: lists gh and off (disabled): prefixed, so enabling off renames nothing', 'research', true],
    ['picky: lists mem alone', 'picky', false],
    ['empty: lists nothing', 'empty', false],
  ])('prefixes by what the view is, not by what is enabled now: %s', (_label, name, prefixed) => {
    const v = resolveView(config, name, LOCAL);
    expect(v.prefixed).toBe(prefixed);
    expect(viewPrefixes(v)).toBe(prefixed);
  });

  it.each([
    // servers of the config (a: enabled, b: enabled or not), view -> prefixed
    ['default view, one server', { a: {} }, undefined, true],
    ['default view, a second one disabled', { a: {}, b: { disabled: true } }, undefined, true],
    ['named view of one', { a: {}, b: {} }, ['a'], false],
    ['named view of two, one disabled', { a: {}, b: { disabled: true } }, ['a', 'b'], true],
  ])('the same name whatever else is enabled: %s', (_label, servers, listed, prefixed) => {
    const c = configSchema.parse({
      mcp_servers: Object.fromEntries(Object.entries(servers).map(([n, extra]) => [n, { command: n, ...extra }])),
      tool_views: listed ? { v: { servers: listed } } : {},
    });
    expect(viewPrefixes(resolveView(c, listed ? 'v' : undefined, LOCAL))).toBe(prefixed);
  });

  it("serve.pin pins tools of the default view; serve.groups chooses its groups of mcpkit's own", () => {
    const c = configSchema.parse({ serve: { pin: ['server_list'], groups: ['config'] } });
    expect(resolveView(c, undefined, LOCAL)).toMatchObject({ pins: ['server_list'] });
    expect(resolveView(c, undefined, LOCAL).local.map((t) => t.name)).toEqual(['config_show', 'config_path']);
    expect(resolveView(c, undefined, LOCAL, { readOnly: false, groups: ['server'] }).local.map((t) => t.name)).toEqual(['server_list']);
  });

  it('keeps a per-view tool selection for the server', () => {
    expect(resolveView(config, 'picky', LOCAL).servers[0]!.view).toEqual({ tools: { read_graph: {} } });
  });

  it('refuses an unknown view with suggestions', () => {
    expect(() => resolveView(config, 'reserch', LOCAL)).toThrow(expect.objectContaining({ code: 'NOT_FOUND', hint: expect.stringContaining('research') }));
  });

  it('refuses unknown groups and tools by name', () => {
    expect(() => resolveView(config, 'typo', LOCAL)).toThrow(/group "nope".*tool "missing_tool"/);
  });
});

describe('view references in the config schema', () => {
  it('reports a view naming an unknown server with its path', () => {
    const parsed = configSchema.safeParse({ tool_views: { v: { servers: ['ghost'] } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]).toMatchObject({ path: ['tool_views', 'v', 'servers', 'ghost'], message: 'no server named "ghost" in mcp_servers' });
  });
});
