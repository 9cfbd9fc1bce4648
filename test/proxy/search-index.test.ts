import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { buildSearchIndex, searchTools, tokenize } from '../../src/proxy/search-index.js';

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
const index = buildSearchIndex(TOOLS);
const names = (query: string, limit = 3) => searchTools(index, query, limit).map((h) => h.name);

describe('tokenize', () => {
  it.each([
    ['search_issues', ['search', 'issue']],
    ['searchIssues', ['search', 'issue']],
    ['github__create-issue', ['github', 'create', 'issue']],
    ['Read the FILE of a repository', ['read', 'file', 'repository']],
    ['running queries', ['runn', 'query']],
  ])('%s', (text, expected) => expect(tokenize(text)).toEqual(expected));
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

  it('breaks ties by name so results are deterministic', () => {
    const twins = buildSearchIndex([tool('b_tool', 'same words'), tool('a_tool', 'same words')]);
    expect(searchTools(twins, 'same', 5).map((h) => h.name)).toEqual(['a_tool', 'b_tool']);
  });
});
