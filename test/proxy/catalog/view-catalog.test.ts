import { describe, expect, it } from 'vitest';
import { settleListings, ViewCatalog } from '../../../src/proxy/catalog/view-catalog.js';
import { FakeUpstream, localTool, quietLogger, tool, viewOf } from '../fake-upstreams.js';

function catalogOf(sources: FakeUpstream[], view = viewOf(sources.map((s) => s.name)), listWaitMs = 1_000) {
  const late: number[] = [];
  const lines: string[] = [];
  const catalog = new ViewCatalog({
    view,
    sources: new Map(sources.map((s) => [s.name, s])),
    logger: quietLogger(lines),
    groupSummaries: new Map([['config', "mcpkit's config file"]]),
    listWaitMs,
    late: () => late.push(Date.now()),
  });
  return { catalog, late, lines };
}

describe('ViewCatalog', () => {
  it('withholds what the pins refuse, and knows it under the name the view would publish', async () => {
    const a = new FakeUpstream('a', [tool('echo'), tool('rug')]);
    const b = new FakeUpstream('b', [tool('add')]);
    const seen: string[] = [];
    const catalog = new ViewCatalog({
      view: viewOf(['a', 'b'], { pinning: 'enforce' }),
      sources: new Map([
        ['a', a],
        ['b', b],
      ]),
      logger: quietLogger([]),
      groupSummaries: new Map(),
      late: () => {},
      pins: {
        admit: (server, tools, mode) => {
          seen.push(`${server}:${mode}`);
          const rug = tools.find((t) => t.name === 'rug');
          return { served: tools.filter((t) => t !== rug), differing: rug ? [{ tool: rug, why: 'changed', withheld: true }] : [], firstUse: false };
        },
      },
    });
    expect(await catalog.names()).toEqual(['a__echo', 'b__add']);
    expect(catalog.withheldTool('a__rug')).toEqual({ server: 'a', tool: 'rug', why: 'changed' });
    expect(catalog.withheldTool('a__echo')).toBeUndefined();
    expect(catalog.withheldTools()).toEqual([{ name: 'a__rug', server: 'a', tool: 'rug', why: 'changed' }]);
    expect(seen).toContain('b:enforce');
  });

  it('lists one server unprefixed and several prefixed, with the local tools first', async () => {
    expect(await catalogOf([new FakeUpstream('a', [tool('echo')])]).catalog.names()).toEqual(['echo']);
    const both = catalogOf([new FakeUpstream('a', [tool('echo')]), new FakeUpstream('b', [tool('add')])], viewOf(['a', 'b'], { local: [localTool] }));
    expect(await both.catalog.names()).toEqual(['config_show', 'a__echo', 'b__add']);
  });

  it('says a pin that names no tool once, not at every new listing', async () => {
    const a = new FakeUpstream('a', [tool('echo')]);
    const { catalog, lines } = catalogOf([a], viewOf(['a'], { pins: ['ecko', 'echo'] }));
    for (let round = 0; round < 3; round++) {
      catalog.invalidate();
      expect((await catalog.exposure()).unknownPins).toEqual(['ecko']);
    }
    expect(lines.filter((l) => l.includes('"ecko" names no tool of the view'))).toHaveLength(1);
  });

  it('keeps a complete listing until invalidated, and asks again after', async () => {
    const a = new FakeUpstream('a', [tool('echo')]);
    const { catalog } = catalogOf([a]);
    await catalog.current();
    await catalog.current();
    expect(a.listed).toBe(1);
    expect(catalog.known?.has('echo')).toBe(true);
    a.tools = [tool('echo'), tool('added')];
    catalog.invalidate();
    expect(catalog.known).toBeUndefined();
    expect(await catalog.names()).toEqual(['echo', 'added']);
  });

  it('keeps the catalog for a client that calls without listing, once every server has listed (the hot path runs on it)', async () => {
    class Listing extends FakeUpstream {
      live = false;
      override async listTools() {
        const tools = await super.listTools();
        this.live = true;
        return tools;
      }
      listedLive(): boolean {
        return this.live;
      }
    }
    const a = new Listing('a', [tool('echo')]);
    const b = new Listing('b', [tool('add')]);
    const { catalog } = catalogOf([a, b]);
    expect((await catalog.entry('a__echo'))?.name).toBe('a__echo');
    // b has not listed yet: nothing complete to keep.
    if (b.listed === 0) expect(catalog.known).toBeUndefined();
    await b.listTools();
    expect((await catalog.entry('b__add'))?.name).toBe('b__add');
    expect(catalog.known?.has('a__echo')).toBe(true);
    expect(catalog.known?.has('b__add')).toBe(true);
  });

  it('lists without a slow server after the wait, does not keep that listing, and says late when it answers', async () => {
    const slow = new FakeUpstream('slow', [tool('later')], true);
    const { catalog, late, lines } = catalogOf([new FakeUpstream('a', [tool('echo')]), slow], undefined, 30);
    expect(await catalog.names()).toEqual(['a__echo']);
    expect(catalog.known).toBeUndefined();
    expect(lines.join('')).toContain('not ready after 30 ms');
    slow.answer();
    await new Promise((r) => setTimeout(r, 10));
    expect(late).toHaveLength(1);
    expect(await catalog.names()).toEqual(['a__echo', 'slow__later']);
  });

  it('does not wait again for a server that missed a listing, until it answers', async () => {
    const slow = new FakeUpstream('slow', [tool('later')], true);
    // A wait of 1 s against an answer at once: apart by far more than a loaded machine's delays.
    const { catalog, late } = catalogOf([new FakeUpstream('a', [tool('echo')]), slow], undefined, 1_000);
    const first = Date.now();
    expect(await catalog.names()).toEqual(['a__echo']);
    expect(Date.now() - first).toBeGreaterThanOrEqual(950);
    const second = Date.now();
    expect(await catalog.names()).toEqual(['a__echo']);
    expect(Date.now() - second).toBeLessThan(500);
    slow.answer();
    await new Promise((r) => setTimeout(r, 10));
    expect(late).toHaveLength(1);
    expect(await catalog.names()).toEqual(['a__echo', 'slow__later']);
    expect(catalog.known).toBeDefined();
  });

  it('finds an entry as soon as its server answered, without waiting for a slow one', async () => {
    const slow = new FakeUpstream('slow', [tool('later')], true);
    const { catalog } = catalogOf([new FakeUpstream('a', [tool('echo')]), slow], undefined, 5_000);
    const started = Date.now();
    expect((await catalog.entry('a__echo'))?.name).toBe('a__echo');
    expect(Date.now() - started).toBeLessThan(1_000);
    slow.answer();
  });

  it('leaves a server that is down out of the wait but keeps its last tools', async () => {
    const down = new FakeUpstream('down', [tool('gone')]);
    await down.listTools();
    down.state = 'down';
    const { catalog } = catalogOf([down]);
    expect(await catalog.names()).toEqual(['gone']);
    expect(down.listed).toBe(1);
  });

  it.each([
    ['direct', 10, 'direct', ['config_show', 'big']],
    [
      'auto, over budget: meta-tools plus the featured tool',
      1_500,
      'search',
      ['mcpkit_search_tools', 'mcpkit_describe_tool', 'mcpkit_call_tool', 'config_show'],
    ],
    ['auto, within budget', 100_000, 'direct', ['config_show', 'big']],
  ] as const)('exposure %s', async (label, budget, mode, listed) => {
    const exposure = label === 'direct' ? 'direct' : 'auto';
    const big = new FakeUpstream('a', [tool('big', 'x'.repeat(8_000))]);
    const { catalog } = catalogOf([big], viewOf(['a'], { local: [localTool], exposure, tokenBudget: budget }));
    const plan = await catalog.exposure();
    expect(plan.mode).toBe(mode);
    expect(plan.listed.map((t) => t.name).sort()).toEqual([...listed].sort());
    if (mode === 'search') expect(plan.listed.find((t) => t.name === 'mcpkit_search_tools')!.description).toContain("config (1: mcpkit's config file)");
  });

  it('warns once about a pin that names no tool, and names the closest in the summary', async () => {
    const { catalog, lines } = catalogOf([new FakeUpstream('a', [tool('echo')])], viewOf(['a'], { pins: ['ecko'], exposure: 'search', name: 'v' }));
    await catalog.exposure();
    await catalog.exposure();
    expect(lines.filter((l) => l.includes('tool_views.v.pin: "ecko"'))).toHaveLength(1);
    expect((await catalog.summary()).unknown_pins).toEqual([{ pin: 'ecko', similar: ['echo'] }]);
  });

  it("ranks the search meta-tool's hits on the tool's words and its group's summary", async () => {
    const { catalog } = catalogOf([new FakeUpstream('a', [tool('add', 'Add two numbers')])], viewOf(['a'], { local: [localTool] }));
    expect((await catalog.search('numbers', 5)).results[0]!.name).toBe('add');
    expect((await catalog.search('config file', 5)).results[0]!.name).toBe('config_show');
  });
});

describe('settleListings: how long a listing waits', () => {
  const source = (ms: number | undefined) =>
    ({ listTools: () => (ms === undefined ? new Promise(() => {}) : new Promise((r) => setTimeout(() => r([]), ms))) }) as unknown as Parameters<
      typeof settleListings
    >[0][number];

  it.each([
    // Upper bounds many times what a correct wait takes (the machine may be loaded), below a wrong one:
    // a listing that all answered waits neither the whole wait nor a straggler's grace (1 s, tool-sources.ts).
    ['all answer: no one is late', [5, 10], 10_000, 0, 0, 800],
    ['a few servers, one dead: the whole wait', [5, undefined], 1_000, 1, 990, 5_000],
    ['many servers, one dead: a short grace, not the whole wait', [...Array.from({ length: 19 }, () => 5), undefined], 10_000, 1, 900, 3_000],
  ] as const)('%s', async (_what, delays, waitMs, lateCount, atLeast, within) => {
    const started = Date.now();
    const late = await settleListings(
      delays.map((d) => source(d)),
      waitMs,
    );
    expect(late).toHaveLength(lateCount);
    expect(Date.now() - started).toBeGreaterThanOrEqual(atLeast);
    expect(Date.now() - started).toBeLessThan(within);
  });
});
