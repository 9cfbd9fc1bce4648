import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { defineTool } from '../../src/tool/define.js';
import { resolveView } from '../../src/proxy/view.js';

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
  it('the default view: every enabled server and all local tools, direct', () => {
    const v = resolveView(config, undefined, LOCAL);
    expect(v).toMatchObject({ exposure: 'direct', local: LOCAL });
    expect(v.servers.map((s) => s.name)).toEqual(['gh', 'mem']);
  });

  it.each([
    ['research', { name: 'research', description: 'R', exposure: 'search', separator: '.' }, ['gh'], ['config_show', 'config_path']],
    ['picky', { name: 'picky', exposure: 'direct', tokens: ['t1'] }, ['mem'], ['server_list']],
    ['empty', { name: 'empty', exposure: 'direct' }, [], []],
  ])('%s', (name, fields, servers, locals) => {
    const v = resolveView(config, name, LOCAL);
    expect(v).toMatchObject(fields);
    expect(v.servers.map((s) => s.name)).toEqual(servers);
    expect(v.local.map((t) => t.name)).toEqual(locals);
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
