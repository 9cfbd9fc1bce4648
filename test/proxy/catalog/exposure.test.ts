import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { listTokens, planExposure, type Exposure } from '../../../src/proxy/catalog/exposure.js';

/** A tool whose JSON is about `bytes` long. */
const tool = (name: string, bytes = 400): Tool => ({ name, description: 'x'.repeat(Math.max(0, bytes - 60 - name.length)), inputSchema: { type: 'object' } });
const META = [tool('v_search_tools', 300), tool('v_describe_tool', 200), tool('v_call_tool', 200)];
const CATALOG = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((n) => tool(n)); // ~800 tokens

const plan = (exposure: Exposure, budget: number, pins: string[] = [], featured: string[] = []) =>
  planExposure(CATALOG, { exposure, budget, pins, featured, meta: () => META });
const names = (tools: Tool[]) => tools.map((t) => t.name);

describe('planExposure', () => {
  it.each([
    // exposure, budget, pins, featured, listed
    ['direct', 500, [], ['a'], ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']],
    ['auto', 5000, [], ['a'], ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']],
    ['auto', 500, [], [], ['v_search_tools', 'v_describe_tool', 'v_call_tool']],
    // The meta-tools cost ~180 tokens and each tool ~100: three more fit in 500.
    ['auto', 500, [], ['c', 'a', 'zz', 'b', 'd'], ['c', 'a', 'b', 'v_search_tools', 'v_describe_tool', 'v_call_tool']],
    ['auto', 500, ['h'], ['c', 'a', 'b'], ['h', 'c', 'a', 'v_search_tools', 'v_describe_tool', 'v_call_tool']],
    ['search', 5000, [], ['a'], ['v_search_tools', 'v_describe_tool', 'v_call_tool']],
    ['search', 5000, ['b', 'b', 'nope'], [], ['b', 'v_search_tools', 'v_describe_tool', 'v_call_tool']],
  ] as [Exposure, number, string[], string[], string[]][])('%s, budget %d, pins %j, featured %j', (exposure, budget, pins, featured, listed) => {
    const p = plan(exposure, budget, pins, featured);
    expect(names(p.listed)).toEqual(listed);
    expect(p.listTokens).toBe(listTokens(p.listed));
    expect(p.catalogTokens).toBe(listTokens(CATALOG));
    expect(p.mode).toBe(listed.length === CATALOG.length && !listed.includes('v_call_tool') ? 'direct' : 'search');
    expect(p.direct).toEqual(listed.filter((n) => !n.startsWith('v_')));
  });

  it('keeps featured tools only while the listing fits the budget; pins even over it', () => {
    for (const budget of [300, 450, 600, 750]) {
      const p = plan('auto', budget, [], ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
      expect(p.listTokens <= budget || p.direct.length === 0, `budget ${budget}`).toBe(true);
      // One more featured tool would not have fitted.
      if (p.direct.length < 7) expect(listTokens([...p.listed, tool('x')]) > budget).toBe(true);
    }
    const pinned = plan('auto', 300, ['a', 'b', 'c'], []);
    expect(pinned.direct).toEqual(['a', 'b', 'c']);
    expect(pinned.listTokens).toBeGreaterThan(300);
  });

  it('names the pins that match no tool', () => {
    expect(plan('auto', 5000, ['a', 'nope']).unknownPins).toEqual(['nope']);
    expect(plan('search', 500, ['x__a']).unknownPins).toEqual(['x__a']);
  });

  it('the meta-tools are made from the whole catalog', () => {
    let seen: readonly Tool[] = [];
    planExposure(CATALOG, { exposure: 'search', budget: 4000, pins: [], featured: [], meta: (c) => ((seen = c), META) });
    expect(names([...seen])).toEqual(names(CATALOG));
  });
});
