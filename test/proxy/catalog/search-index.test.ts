import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { buildSearchIndex, searchTools, stem, tokenize } from '../../../src/proxy/catalog/search-index.js';

const tool = (name: string, description: string, params: Record<string, string> = {}): Tool => ({
  name,
  description,
  inputSchema: { type: 'object', properties: Object.fromEntries(Object.entries(params).map(([k, d]) => [k, { type: 'string', description: d }])) },
});

const TOOLS = [
  tool('github__search_issues', 'Search issues and pull requests in GitHub repositories', { query: 'Search query' }),
  tool('github__create_issue', 'Open a new issue in a repository', { title: 'Issue title', body: 'Issue body' }),
  tool('github__search_code', 'Search source code across repositories', { query: 'Code search query' }),
  tool('memory__read_graph', 'Read the entire knowledge graph'),
  tool('memory__search_nodes', 'Search for nodes in the knowledge graph based on a query', { query: 'What to find' }),
  tool('filesystem__read_file', 'Read the contents of a file from disk', { path: 'File path' }),
  tool('everything__echo', 'Echoes back the input string', { message: 'Message to echo' }),
];
const index = buildSearchIndex(TOOLS.map((t) => ({ tool: t })));
const names = (query: string, limit = 3) => searchTools(index, query, limit).map((h) => h.name);

describe('tokenize', () => {
  it.each([
    ['search_issues', ['search', 'issu']],
    ['searchIssues', ['search', 'issu']],
    ['github__create-issue', ['github', 'creat', 'issu']],
    ['Read the FILE of a repository', ['read', 'file', 'repository']],
    ['running queries', ['run', 'query']],
    // Common words go; phrasal verbs read as the word a description uses.
    ['how do I turn off a server', ['disabl', 'server']],
    ['look up nodes', ['lookup', 'node']],
    ['get rid of the view', ['delet', 'view']],
    ['grep the codebase', ['grep', 'code']],
  ])('%s', (text, expected) => expect(tokenize(text)).toEqual(expected));
});

describe('stem folds word forms together', () => {
  it.each([
    [['relation', 'relations', 'relationship', 'relationships'], 'relat'],
    [['entity', 'entities'], 'entity'],
    [['delete', 'deleted', 'deleting', 'deletes'], 'delet'],
    [['create', 'created', 'creating'], 'creat'],
    [['vertex', 'vertices'], 'vertex'],
    [['index', 'indexes', 'indices'], 'index'],
    [['map', 'mapped', 'mapping'], 'map'],
    [['search', 'searches', 'searching'], 'search'],
    [['class', 'classes'], 'class'],
  ])('%j -> %s', (words, expected) => {
    for (const w of words) expect(stem(w), w).toBe(expected);
  });
});

describe("searchTools understands an agent's words", () => {
  const catalog = buildSearchIndex(
    [
      tool('filesystem__create_directory', 'Create a new directory or ensure it exists', { path: 'Directory path' }),
      tool('filesystem__write_file', 'Create a new file or overwrite one', { path: 'File path', content: 'Text' }),
      tool('memory__create_relations', 'Create relations between entities in the knowledge graph'),
      tool('memory__create_entities', 'Create entities in the knowledge graph'),
      tool('db__create_index', 'Create an index on a collection'),
      tool('db__query', 'Run a query on a collection'),
      tool('server_disable', 'Disable a server: it stays in the config'),
      tool('server_remove', 'Remove a server from the config'),
    ].map((t) => ({ tool: t })),
  );
  it.each([
    ['make a new folder', 'filesystem__create_directory'], // synonyms: make ~ create, folder ~ directory
    ['connect two entities with a relationship', 'memory__create_relations'], // stems: relationship ~ relations
    ['speed up lookups on a collection', 'db__create_index'],
    ['turn off a server without deleting it', 'server_disable'],
  ])('"%s" ranks %s first', (query, best) => {
    expect(searchTools(catalog, query, 3)[0]?.name).toBe(best);
  });

  it("a word's own match outranks a synonym's", () => {
    const both = buildSearchIndex([tool('a_make', 'make things'), tool('b_create', 'create things')].map((t) => ({ tool: t })));
    expect(searchTools(both, 'make', 2).map((h) => h.name)).toEqual(['a_make', 'b_create']);
  });

  it('where a tool comes from counts: a server or group name in the task finds its tools', () => {
    const sourced = buildSearchIndex([
      { tool: tool('read', 'Read one item'), source: 'memory knowledge graph' },
      { tool: tool('read_item', 'Read one item'), source: 'arango' },
    ]);
    expect(searchTools(sourced, 'read from memory', 2)[0]?.name).toBe('read');
  });
});

describe('searchTools (BM25)', () => {
  it.each([
    ['search issues on github', 'github__search_issues'],
    ['open a new issue', 'github__create_issue'],
    ['source code', 'github__search_code'],
    ['knowledge graph nodes', 'memory__search_nodes'],
    ['read a file from disk', 'filesystem__read_file'],
    ['echo message', 'everything__echo'],
  ])('"%s" ranks %s first', (query, best) => {
    expect(names(query)[0]).toBe(best);
  });

  it('ranks by relevance, not by order or substring: a tool matching more rare terms wins', () => {
    expect(names('graph')).toEqual(['memory__read_graph', 'memory__search_nodes']);
  });

  it('returns nothing for a query that matches nothing, and respects the limit', () => {
    expect(names('kubernetes')).toEqual([]);
    expect(searchTools(index, 'search', 2)).toHaveLength(2);
  });

  it("a query that is a tool's own name finds it first, however long its description", () => {
    const long = tool('search', `Find text in files. ${'Many more words about options and flags. '.repeat(40)}`, { query: 'q', patterns: 'p', glob: 'g' });
    const many = buildSearchIndex([...TOOLS, long].map((t) => ({ tool: t })));
    expect(searchTools(many, 'search', 3)[0]).toMatchObject({ name: 'search', exact: true });
    expect(searchTools(many, 'search nodes', 3)[0]!.name).toBe('memory__search_nodes'); // a name's words with its server's left out
    expect(searchTools(many, 'memory search nodes', 3)[0]).toMatchObject({ name: 'memory__search_nodes', exact: true });
  });

  it('breaks ties by name so results are deterministic', () => {
    const twins = buildSearchIndex([tool('b_tool', 'same words'), tool('a_tool', 'same words')].map((t) => ({ tool: t })));
    expect(searchTools(twins, 'same', 5).map((h) => h.name)).toEqual(['a_tool', 'b_tool']);
  });
});
