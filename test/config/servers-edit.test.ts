import { parseDocument, type Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  addServer,
  clearToolOverride,
  parsePairs,
  removeServer,
  serverNames,
  setServerDisabled,
  setServerTools,
  setToolDescription,
  setToolOverride,
} from '../../src/config/edits/servers-edit.js';
import { codeOf } from '../helpers/errors.js';

const BASE = `# servers we use
mcp_servers:
  github: # remote
    url: https://example.com/mcp
    tools:
      search_code: {}
      search_issues:
        description: "Issues. {original}"
  memory:
    command: npx
`;
const doc = () => parseDocument(BASE);

describe('server edits on the YAML document', () => {
  it('adds a server at the end, keeping comments', () => {
    const d = doc();
    expect(addServer(d, 'fs', { command: 'npx', args: ['-y', 'x'] }, { force: false })).toEqual({ replaced: false });
    expect(serverNames(d)).toEqual(['github', 'memory', 'fs']);
    expect(d.toString()).toContain('# servers we use');
    expect(d.toString()).toContain('# remote'); // yaml moves a comment after `key:` of a mapping to the next line
  });

  it('creates mcp_servers in an empty document', () => {
    const d = parseDocument('');
    addServer(d, 'a', { command: 'x' }, { force: false });
    expect(d.toJS()).toEqual({ mcp_servers: { a: { command: 'x' } } });
  });

  it.each<[string, (d: Document) => unknown, string]>([
    ['adding an existing name', (d) => addServer(d, 'memory', { command: 'y' }, { force: false }), 'CONFLICT'],
    ['removing an unknown server', (d) => removeServer(d, 'nope'), 'NOT_FOUND'],
    ['disabling an unknown server', (d) => setServerDisabled(d, 'nope', true), 'NOT_FOUND'],
    ['renaming a tool of an unknown server', (d) => setToolOverride(d, 'nope', 'x', 'name', 'y'), 'NOT_FOUND'],
    ['describing a tool outside the allow-list', (d) => setToolDescription(d, 'github', 'create_issue', 'y'), 'NOT_FOUND'],
  ])('refuses %s', (_name, mutate, code) => {
    const d = doc();
    expect(codeOf(() => mutate(d))).toBe(code);
    expect(d.toString()).toBe(doc().toString());
  });

  it('replaces with force', () => {
    const d = doc();
    expect(addServer(d, 'memory', { command: 'node' }, { force: true })).toEqual({ replaced: true });
    expect(d.getIn(['mcp_servers', 'memory', 'command'])).toBe('node');
  });

  it('removes a server', () => {
    const d = doc();
    removeServer(d, 'memory');
    expect(serverNames(d)).toEqual(['github']);
  });

  it('disables and enables, reporting whether anything changed', () => {
    const d = doc();
    expect(setServerDisabled(d, 'memory', true)).toBe(true);
    expect(setServerDisabled(d, 'memory', true)).toBe(false);
    expect(d.getIn(['mcp_servers', 'memory', 'disabled'])).toBe(true);
    expect(setServerDisabled(d, 'memory', false)).toBe(true);
    expect(d.hasIn(['mcp_servers', 'memory', 'disabled'])).toBe(false);
  });

  it('sets the allow-list, keeping overrides of tools that stay', () => {
    const d = doc();
    setServerTools(d, 'github', ['search_issues', 'create_issue']);
    expect(d.getIn(['mcp_servers', 'github', 'tools'])?.toString()).toBeDefined();
    expect((d.toJS() as { mcp_servers: { github: { tools: unknown } } }).mcp_servers.github.tools).toEqual({
      search_issues: { description: 'Issues. {original}' },
      create_issue: {},
    });
    expect(setServerTools(d, 'github', null)).toEqual({ previous: ['search_issues', 'create_issue'], dropped_overrides: [] });
    expect(d.hasIn(['mcp_servers', 'github', 'tools'])).toBe(false);
    // Every tool passes now, and the description set on search_issues still applies.
    expect((d.toJS() as { mcp_servers: { github: { overrides: unknown } } }).mcp_servers.github.overrides).toEqual({
      search_issues: { description: 'Issues. {original}' },
    });
  });

  it("--all moves overrides under overrides:, the allow-list's words winning over an older entry of the same tool", () => {
    const d = parseDocument(
      'mcp_servers:\n  s:\n    command: x\n    tools:\n      a: { name: alpha, description: New }\n      b: {}\n    overrides:\n      a: { description: Old }\n      c: { name: gamma }\n',
    );
    expect(setServerTools(d, 's', null).dropped_overrides).toEqual([]);
    expect((d.toJS() as { mcp_servers: { s: unknown } }).mcp_servers.s).toEqual({
      command: 'x',
      overrides: { a: { description: 'New', name: 'alpha' }, c: { name: 'gamma' } },
    });
  });

  it('without an allow-list, a description or a rename goes under overrides (no tool is hidden); clearing it leaves nothing behind', () => {
    const d = doc();
    expect(setToolDescription(d, 'memory', 'read_graph', 'Ours. {original}')).toBe('overrides');
    expect(setToolOverride(d, 'memory', 'read_graph', 'name', 'graph')).toBe('overrides');
    expect((d.toJS() as { mcp_servers: { memory: unknown } }).mcp_servers.memory).toEqual({
      command: 'npx',
      overrides: { read_graph: { description: 'Ours. {original}', name: 'graph' } },
    });
    expect(d.hasIn(['mcp_servers', 'memory', 'tools'])).toBe(false);
    clearToolOverride(d, 'memory', 'read_graph', 'name');
    clearToolOverride(d, 'memory', 'read_graph', 'description');
    expect((d.toJS() as { mcp_servers: { memory: unknown } }).mcp_servers.memory).toEqual({ command: 'npx' });
    // With an allow-list, the allow-list entry holds it.
    expect(setToolOverride(d, 'github', 'search_code', 'name', 'code')).toBe('tools');
    expect(d.getIn(['mcp_servers', 'github', 'tools', 'search_code', 'name'])).toBe('code');
  });

  it('sets a description on an allow-listed tool', () => {
    const d = doc();
    setToolDescription(d, 'github', 'search_code', 'Code. {original}');
    expect(d.getIn(['mcp_servers', 'github', 'tools', 'search_code', 'description'])).toBe('Code. {original}');
  });
});

describe('parsePairs', () => {
  it.each([
    [undefined, undefined],
    [[], undefined],
    [['A=1', 'B=x=y', 'C='], { A: '1', B: 'x=y', C: '' }],
  ])('%j', (pairs, expected) => {
    expect(parsePairs(pairs, 'env')).toEqual(expected);
  });
  it('refuses a pair without a key', () => {
    expect(codeOf(() => parsePairs(['=1'], 'env'))).toBe('INVALID_INPUT');
    expect(codeOf(() => parsePairs(['NOEQ'], 'env'))).toBe('INVALID_INPUT');
  });
});
