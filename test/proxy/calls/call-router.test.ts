import { describe, expect, it } from 'vitest';
import { CallRouter } from '../../../src/proxy/calls/call-router.js';
import { HookChain } from '../../../src/proxy/calls/hooks.js';
import { ViewCatalog } from '../../../src/proxy/catalog/view-catalog.js';
import type { ResolvedView } from '../../../src/proxy/catalog/view.js';
import type { ProxyCallContext } from '../../../src/proxy/calls/call-context.js';
import type { ToolContext } from '../../../src/tool/context.js';
import { defineTool } from '../../../src/tool/define.js';
import { runLocalTool } from '../../../src/tool/mcp-shape.js';
import { FakeUpstream, localTool, quietLogger, tool, viewOf } from '../fake-upstreams.js';

// An agent's call; the local tool of the fixture reads nothing of the tools' context.
const context: ProxyCallContext = { reach: 'listed', callLocal: (t, args) => runLocalTool(t, args, {} as ToolContext) };

function routerOf(upstreams: FakeUpstream[], view: ResolvedView = viewOf(upstreams.map((u) => u.name))) {
  const byName = new Map(upstreams.map((u) => [u.name, u]));
  const catalog = new ViewCatalog({ view, sources: byName, logger: quietLogger(), groupSummaries: new Map(), late: () => {} });
  const unenforced: string[] = [];
  const router = new CallRouter({
    catalog,
    targets: byName,
    hooks: new HookChain(view.hooks, '/'),
    meta: view.exposure === 'direct' ? false : view.exposure === 'code' ? 'code' : 'search',
    unenforced: (r) => void unenforced.push(r),
  });
  return { router, catalog, unenforced };
}

const text = (r: { content?: unknown }) => JSON.stringify(r.content);

describe('CallRouter', () => {
  it("sends a prefixed name to its server under the server's own name", async () => {
    const a = new FakeUpstream('a', [tool('echo')]);
    const { router } = routerOf([a, new FakeUpstream('b', [tool('echo')])]);
    const outcome = await router.call('a__echo', {}, context);
    expect(outcome).toMatchObject({ found: true });
    expect(a.calls).toEqual([{ name: 'echo', args: {} }]);
  });

  it('runs a local tool, and says an unknown name is not found with the closest names', async () => {
    const { router } = routerOf([new FakeUpstream('a', [tool('echo')])], viewOf(['a'], { local: [localTool] }));
    const local = await router.call('config_show', {}, context);
    expect(local.found && text(local.result)).toContain('shown');
    expect(await router.call('ecko', {}, context)).toEqual({ found: false, similar: ['echo'] });
  });

  it("checks arguments against the upstream's schema before calling it", async () => {
    const a = new FakeUpstream('a', [tool('echo', 'echo', { message: { type: 'string' } })]);
    const { router } = routerOf([a]);
    const outcome = await router.call('echo', {}, context);
    expect(outcome.found && outcome.result.isError).toBe(true);
    expect(outcome.found && text(outcome.result)).toContain('message');
    expect(a.calls).toEqual([]);
  });

  it('takes the hot path only once the catalog is known and the server is ready', async () => {
    const a = new FakeUpstream('a', [tool('echo')]);
    const { router, catalog } = routerOf([a]);
    const replies: unknown[] = [];
    const fast = (name: string) => router.fastCall({ name, arguments: {} });
    expect(fast('echo')).toBeUndefined();
    await catalog.current();
    a.ready = false;
    expect(fast('echo')).toBeUndefined();
    a.ready = true;
    const call = fast('echo');
    expect(call?.entry.name).toBe('echo');
    // Deciding does not run it: running does.
    expect(replies).toEqual([]);
    call!.run({ reply: (r) => replies.push(r) });
    expect(JSON.stringify(replies)).toContain('fast a:echo');
    expect(fast('nope')).toBeUndefined();
  });

  it('never takes the hot path past a hook', async () => {
    const a = new FakeUpstream('a', [tool('echo')]);
    const { router, catalog } = routerOf([a], viewOf(['a'], { hooks: [{ pre_call: '/nonexistent-hook.mjs' }] }));
    await catalog.current();
    expect(router.fastCall({ name: 'echo', arguments: {} })).toBeUndefined();
  });

  it('search, describe and call meta-tools reach every catalog tool', async () => {
    const a = new FakeUpstream('a', [tool('add', 'Add two numbers')]);
    const { router } = routerOf([a], viewOf(['a'], { exposure: 'search' }));
    const searched = await router.call('mcpkit_search_tools', { query: 'numbers' }, context);
    expect(searched.found && text(searched.result)).toContain('add');
    const described = await router.call('mcpkit_describe_tool', { name: 'add' }, context);
    expect(described.found && text(described.result)).toContain('Add two numbers');
    const called = await router.call('mcpkit_call_tool', { name: 'add', arguments: {} }, context);
    expect(called.found && text(called.result)).toContain('a:add');
    const missing = await router.call('mcpkit_call_tool', { name: 'ad' }, context);
    expect(missing.found && missing.result.isError && text(missing.result)).toContain('Did you mean add?');
  });

  it.each([
    ['a read-only client, a writer that enforces read-only', true, true, true],
    ['a read-only client, a writer that does not', true, false, false],
    ['a client that may write, a writer that enforces read-only', false, true, false],
  ])("asks mcpkit's own tool to run under the read-only policy for %s", async (_what, readOnlyClient, enforces, asked) => {
    const writer = defineTool({
      ...localTool,
      name: 'config_write',
      command: { id: 'config write', examples: ['x'] },
      annotations: { ...localTool.annotations, readOnlyHint: false },
      ...(enforces ? { enforcesReadOnly: true } : {}),
    });
    const { router } = routerOf([], viewOf([], { local: [writer] }));
    const seen: boolean[] = [];
    const caller: ProxyCallContext = {
      reach: 'listed',
      access: { client: 'bob', readOnly: readOnlyClient },
      callLocal: (t, args, how) => (seen.push(how.readOnly), runLocalTool(t, args, {} as ToolContext)),
    };
    const outcome = await router.call('config_write', {}, caller);
    expect(outcome.found && outcome.result.isError).toBeFalsy();
    expect(seen).toEqual([asked]);
  });

  it('runs a composite step by step through the same router', async () => {
    const a = new FakeUpstream('a', [tool('echo')]);
    const view = viewOf(['a'], { composites: [{ name: 'twice', spec: { description: 'echo twice', chain: [{ tool: 'a.echo' }, { tool: 'a.echo' }] } }] });
    const { router } = routerOf([a], view);
    const outcome = await router.call('twice', {}, context);
    expect(outcome.found && outcome.result.isError).toBeFalsy();
    expect(a.calls).toHaveLength(2);
  });
});
