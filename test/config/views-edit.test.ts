import { parseDocument, type Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  addViewServer,
  createView,
  deleteView,
  listedServerCount,
  prefixChange,
  removeViewServer,
  setViewField,
  setViewTools,
} from '../../src/config/edits/views-edit.js';
import { codeOf } from '../helpers/errors.js';

const BASE = `mcp_servers:
  gh: { url: "https://example.com/mcp" }
  mem: { command: x }
tool_views:
  # for research
  research:
    servers: [gh]
`;
const doc = () => parseDocument(BASE);
const views = (d: Document) => (d.toJS() as { tool_views: Record<string, unknown> }).tool_views;

describe('view edits on the YAML document', () => {
  it('creates, refuses a duplicate, replaces with force, deletes', () => {
    const d = doc();
    createView(d, 'lean', { description: 'L', exposure: 'search' }, { force: false });
    expect(views(d).lean).toEqual({ description: 'L', exposure: 'search' });
    expect(codeOf(() => createView(d, 'lean', {}, { force: false }))).toBe('CONFLICT');
    expect(createView(d, 'lean', {}, { force: true })).toEqual({ replaced: true });
    deleteView(d, 'lean');
    expect(Object.keys(views(d))).toEqual(['research']);
    expect(d.toString()).toContain('# for research');
  });

  it('adds servers in list form, switching to map form for a tool selection', () => {
    const d = doc();
    addViewServer(d, 'research', 'mem', undefined);
    expect(views(d).research).toEqual({ servers: ['gh', 'mem'] });
    addViewServer(d, 'research', 'mem', undefined);
    expect(views(d).research).toEqual({ servers: ['gh', 'mem'] });
    addViewServer(d, 'research', 'gh', ['search_code']);
    expect(views(d).research).toEqual({ servers: { gh: { tools: { search_code: {} } }, mem: {} } });
  });

  it('sets and clears a per-view tool selection', () => {
    const d = doc();
    setViewTools(d, 'research', 'gh', ['a', 'b']);
    expect(views(d).research).toEqual({ servers: { gh: { tools: { a: {}, b: {} } } } });
    setViewTools(d, 'research', 'gh', null);
    expect(views(d).research).toEqual({ servers: { gh: {} } });
  });

  it('removes a server in either form', () => {
    const d = doc();
    removeViewServer(d, 'research', 'gh');
    expect(views(d).research).toEqual({ servers: [] });
    const m = doc();
    setViewTools(m, 'research', 'gh', ['a']);
    removeViewServer(m, 'research', 'gh');
    expect(views(m).research).toEqual({ servers: {} });
  });

  it('sets fields and reports no-ops', () => {
    const d = doc();
    expect(setViewField(d, 'research', 'exposure', 'search')).toBe(true);
    expect(setViewField(d, 'research', 'exposure', 'search')).toBe(false);
  });

  it.each<[string, (d: Document) => unknown, string]>([
    ['an unknown view', (d) => deleteView(d, 'nope'), 'NOT_FOUND'],
    ['an unknown server', (d) => addViewServer(d, 'research', 'ghost', undefined), 'NOT_FOUND'],
    ['removing a server the view lacks', (d) => removeViewServer(d, 'research', 'mem'), 'NOT_FOUND'],
    ['tools for a server the view lacks', (d) => setViewTools(d, 'research', 'mem', ['x']), 'NOT_FOUND'],
  ])('refuses %s, leaving the document unchanged', (_name, mutate, code) => {
    const d = doc();
    expect(codeOf(() => mutate(d))).toBe(code);
    expect(d.toString()).toBe(doc().toString());
  });

  it.each<[string, (d: Document) => unknown, number, ReturnType<typeof prefixChange>]>([
    // edit -> servers listed after, what it does to the names
    ['a second server (list form)', (d) => addViewServer(d, 'research', 'mem', undefined), 2, 'now_prefixed'],
    ['a second server with a tool selection (map form)', (d) => addViewServer(d, 'research', 'mem', ['x']), 2, 'now_prefixed'],
    ['the same server again', (d) => addViewServer(d, 'research', 'gh', undefined), 1, undefined],
    ['the only server removed', (d) => removeViewServer(d, 'research', 'gh'), 0, undefined],
  ])('counts the servers a view lists: %s', (_name, edit, after, change) => {
    const d = doc();
    const before = listedServerCount(d, 'research');
    edit(d);
    expect(listedServerCount(d, 'research')).toBe(after);
    expect(prefixChange(before, after)).toBe(change);
  });

  it.each([
    [0, 1, undefined],
    [1, 2, 'now_prefixed'],
    [3, 2, undefined],
    [2, 1, 'now_unprefixed'],
    [2, 0, 'now_unprefixed'],
  ] as const)('prefixChange(%d, %d) is %s', (before, after, change) => {
    expect(prefixChange(before, after)).toBe(change);
  });
});
