import { describe, expect, it } from 'vitest';
import type { Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
import { PromptResourceRouter } from '../../src/proxy/prompts-resources.js';
import type { Upstream } from '../../src/proxy/upstream/upstream.js';
import type { FilterRule } from '../../src/proxy/catalog/filter.js';

/** An upstream's resource surface: what it lists, and what it was asked for. */
function resourceServer(name: string, resources: Resource[], templates: ResourceTemplateType[]) {
  const asked = { lists: 0, templateLists: 0, reads: [] as string[] };
  const upstream = {
    name,
    status: () => ({ state: 'ready' }),
    reads: {
      listResources: async () => (asked.lists++, resources),
      listResourceTemplates: async () => (asked.templateLists++, templates),
      readResource: async (uri: string) => (asked.reads.push(uri), { contents: [{ uri, text: `${name}:${uri}` }] }),
    },
  } as unknown as Upstream;
  return { upstream, asked };
}

const EVERYTHING = () =>
  resourceServer(
    'everything',
    [
      { uri: 'demo://resource/static/text/1', name: 'Static 1' },
      { uri: 'demo://resource/static/text/2', name: 'Secret notes' },
    ],
    [{ uriTemplate: 'demo://resource/dynamic/text/{resourceId}', name: 'Dynamic Text Resource' }],
  );

const router = (rules: FilterRule[], ...servers: ReturnType<typeof resourceServer>[]) =>
  new PromptResourceRouter(
    servers.map((s) => ({ upstream: s.upstream, rules: [rules] })),
    undefined,
  );

describe('resources/read obeys the filters', () => {
  it.each<[string, FilterRule[], string, boolean]>([
    ['a listed, visible resource', [], 'demo://resource/static/text/1', true],
    ['an instance of a visible template', [], 'demo://resource/dynamic/text/7', true],
    ['a URI nothing lists or matches', [], 'file:///etc/passwd', false],
    ['a URI that only starts like a template', [], 'demo://resource/dynamic/text/7/../../static', false],
    ['every resource hidden: a template instance', [{ exclude: '*' }], 'demo://resource/dynamic/text/1', false],
    ['every resource hidden: a listed one', [{ exclude: '*' }], 'demo://resource/static/text/1', false],
    ['one resource hidden by name', [{ exclude: 'Secret*' }], 'demo://resource/static/text/2', false],
    ['the template hidden, its instance too', [{ exclude: 'Dynamic*' }], 'demo://resource/dynamic/text/3', false],
  ])('%s', async (_what, rules, uri, served) => {
    const server = EVERYTHING();
    const r = router(rules, server);
    if (served) {
      expect((await r.readResource(uri)).contents[0]).toMatchObject({ uri });
      expect(server.asked.reads).toEqual([uri]);
    } else {
      await expect(r.readResource(uri)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(server.asked.reads).toEqual([]);
    }
    expect(await r.resourceOwner(uri)).toBe(served ? server.upstream : undefined);
  });

  it('a template instance goes to the server whose template it matches', async () => {
    const a = resourceServer('a', [], [{ uriTemplate: 'a://item/{id}', name: 'A items' }]);
    const b = resourceServer('b', [], [{ uriTemplate: 'b://item/{id}', name: 'B items' }]);
    const r = router([], a, b);
    await r.readResource('b://item/9');
    expect([a.asked.reads, b.asked.reads]).toEqual([[], ['b://item/9']]);
  });
});

describe('looking up many URIs costs one listing', () => {
  it('a burst of unknown URIs lists each server once, not once per URI', async () => {
    const server = EVERYTHING();
    const r = router([], server);
    const uris = Array.from({ length: 500 }, (_, i) => `demo://unknown/${i}`);
    const owners = await Promise.all(uris.map((uri) => r.resourceOwner(uri)));
    expect(owners.every((o) => o === undefined)).toBe(true);
    expect(server.asked.lists).toBeLessThanOrEqual(2);
    expect(server.asked.templateLists).toBeLessThanOrEqual(2);
  });
});
