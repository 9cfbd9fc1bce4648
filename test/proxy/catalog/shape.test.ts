import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { fitName, fnv1a, prefixedName, sanitizeName, uniqueNames } from '../../../src/proxy/catalog/names.js';
import { applyDescription, shapeServerTools, type ServerShaping } from '../../../src/proxy/catalog/shape.js';

const tool = (name: string, description = `${name} does things`): Tool => ({ name, description, inputSchema: { type: 'object' } });
const UPSTREAM = ['search_code', 'search_issues', 'create_issue', 'delete_repo'].map((n) => tool(n));

describe('shapeServerTools', () => {
  it.each<[string, ServerShaping, string[]]>([
    ['no shaping passes everything', {}, ['search_code', 'search_issues', 'create_issue', 'delete_repo']],
    ['an allow-list keeps only the listed tools', { tools: { search_code: {}, search_issues: null } }, ['search_code', 'search_issues']],
    ['enabled: false hides a listed tool', { tools: { search_code: {}, create_issue: { enabled: false } } }, ['search_code']],
    ['filter rules apply first', { filter: [{ exclude: 'delete_*' }] }, ['search_code', 'search_issues', 'create_issue']],
    ['both must pass', { filter: [{ include: 'search_*' }], tools: { search_code: {}, create_issue: {} } }, ['search_code']],
    ['a listed name the upstream lacks is ignored', { tools: { nope: {} } }, []],
    ['overrides alone restrict nothing', { overrides: { search_code: { description: 'x' } } }, ['search_code', 'search_issues', 'create_issue', 'delete_repo']],
    ['an override may hide a tool', { overrides: { delete_repo: { enabled: false } } }, ['search_code', 'search_issues', 'create_issue']],
    ['overrides of tools an allow-list leaves out change nothing', { tools: { search_code: {} }, overrides: { create_issue: { name: 'c' } } }, ['search_code']],
  ])('%s', (_name, shaping, expected) => {
    expect(shapeServerTools(UPSTREAM, shaping).map((s) => s.upstreamName)).toEqual(expected);
  });

  it('renames and rewrites descriptions with {original}, keeping the upstream name for calls', () => {
    const [shaped] = shapeServerTools(UPSTREAM, { tools: { search_issues: { name: 'find_issues', description: 'Search issues. {original}' } } });
    expect(shaped).toEqual({
      upstreamName: 'search_issues',
      tool: { name: 'find_issues', description: 'Search issues. search_issues does things', inputSchema: { type: 'object' } },
    });
  });

  it.each<[string, ServerShaping, { name: string; description: string }[]]>([
    [
      'an override renames and describes without an allow-list',
      { overrides: { search_issues: { name: 'find_issues', description: 'Ours. {original}' } } },
      [{ name: 'find_issues', description: 'Ours. search_issues does things' }],
    ],
    [
      "an allow-list entry's own fields win over the override",
      { tools: { search_issues: { name: 'listed' } }, overrides: { search_issues: { name: 'overridden', description: 'from overrides' } } },
      [{ name: 'listed', description: 'from overrides' }],
    ],
  ])('%s', (_name, shaping, expected) => {
    const shaped = shapeServerTools(UPSTREAM, shaping).filter((s) => s.upstreamName === 'search_issues');
    expect(shaped.map((s) => ({ name: s.tool.name, description: s.tool.description }))).toEqual(expected);
    expect(shaped.every((s) => s.upstreamName === 'search_issues')).toBe(true);
  });

  it('does not change the upstream tool objects', () => {
    const before = structuredClone(UPSTREAM);
    shapeServerTools(UPSTREAM, { tools: { search_code: { name: 'x', description: 'y' } } });
    expect(UPSTREAM).toEqual(before);
  });
});

describe('applyDescription', () => {
  it.each([
    ['Search issues. {original}', 'Finds issues.', 'Search issues. Finds issues.'],
    ['{original} {original}', 'a', 'a a'],
    ['No template', 'a', 'No template'],
    ['Prefix {original}', undefined, 'Prefix '],
  ])('%s', (template, original, expected) => {
    expect(applyDescription(template, original)).toBe(expected);
  });
});

describe('names', () => {
  it.each([
    ['github', 'search_code', '__', 'github__search_code'],
    ['github', 'search_code', '.', 'github.search_code'],
    ['github', 'search_code', null, 'search_code'],
  ])('prefixedName(%s, %s, %j)', (server, t, sep, expected) => {
    expect(prefixedName(server, t, sep)).toBe(expected);
  });

  it.each([
    ['ok_name-1', 'ok_name-1'],
    ['github.search code', 'github_search_code'],
    ['', '_'],
  ])('sanitizeName(%j)', (raw, expected) => expect(sanitizeName(raw)).toBe(expected));

  it('leaves names up to 64 characters alone and shortens longer ones deterministically', () => {
    const exact = 'a'.repeat(64);
    expect(fitName(exact)).toBe(exact);
    const long = `${'server'.repeat(6)}__${'tool'.repeat(10)}`;
    const fitted = fitName(long);
    expect(fitted).toHaveLength(64);
    expect(fitted).toBe(`${long.slice(0, 55)}_${fnv1a(long)}`);
    expect(fitName(long)).toBe(fitted);
    expect(fitName(`${long}x`)).not.toBe(fitted);
  });

  it.each([
    [
      ['weird name/with:chars', 'weird_name_with_chars'],
      ['weird_name_with_chars_2', 'weird_name_with_chars'],
    ],
    [
      ['a.b', 'a_b', 'a b'],
      ['a_b_2', 'a_b', 'a_b_3'],
    ],
    [
      ['a_b', 'a.b'],
      ['a_b', 'a_b_2'],
    ],
  ])('a name valid as it is keeps it, whatever comes first: %j', (names, published) => {
    expect(uniqueNames(names)).toEqual(published);
  });

  it('keeps names unique, the first of equals unchanged', () => {
    expect(uniqueNames(['a__b', 'a.b', 'a__b', 'c'])).toEqual(['a__b', 'a_b', 'a__b_2', 'c']);
    const long = 'x'.repeat(80);
    const [first, second] = uniqueNames([long, long]);
    expect(first).toHaveLength(64);
    expect(second).toHaveLength(64);
    expect(second!.endsWith('_2')).toBe(true);
    expect(first).not.toBe(second);
  });
});

describe('reshapeTools (a view on top of the server rules)', async () => {
  const { reshapeTools } = await import('../../../src/proxy/catalog/shape.js');
  it('matches the names the server publishes and keeps routing to the upstream name', () => {
    const server = shapeServerTools(UPSTREAM, { tools: { search_issues: { name: 'find_issues' }, search_code: {} } });
    const view = reshapeTools(server, { tools: { find_issues: { description: 'In a view. {original}' } } });
    expect(view).toEqual([
      { upstreamName: 'search_issues', tool: { name: 'find_issues', description: 'In a view. search_issues does things', inputSchema: { type: 'object' } } },
    ]);
  });
});
