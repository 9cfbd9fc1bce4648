import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { hiddenTools } from '../../../src/proxy/catalog/hidden-tools.js';
import type { ServerShaping } from '../../../src/proxy/catalog/shape.js';

const tool = (name: string, readOnly = true): Tool => ({ name, inputSchema: { type: 'object' }, annotations: { readOnlyHint: readOnly } });
const TOOLS = [tool('search_code'), tool('search_issues'), tool('create_issue', false), tool('delete_repo', false)];

describe('hiddenTools', () => {
  it.each<[string, ServerShaping, ServerShaping | undefined, boolean, [string, string][]]>([
    ['nothing hidden', {}, undefined, false, []],
    [
      "the server's filter, by rule",
      { filter: [{ exclude: 'delete_*' }] },
      undefined,
      false,
      [['delete_repo', 'the server\'s filter (rule 1: --exclude "delete_*")']],
    ],
    [
      "the server's allow-list",
      { tools: { search_code: {}, create_issue: { enabled: false } } },
      undefined,
      false,
      [
        ['search_issues', "not in the server's allow-list (mcp_servers.NAME.tools)"],
        ['create_issue', 'enabled: false in the server entry'],
        ['delete_repo', "not in the server's allow-list (mcp_servers.NAME.tools)"],
      ],
    ],
    [
      "the view's tools, by the name the server publishes",
      { overrides: { search_issues: { name: 'issues' } } },
      { tools: { search_code: {}, search_issues: {} } },
      false,
      [
        ['search_issues', 'not among the view\'s tools of this server (add "issues" to serve it)'],
        ['create_issue', 'not among the view\'s tools of this server (add "create_issue" to serve it)'],
        ['delete_repo', 'not among the view\'s tools of this server (add "delete_repo" to serve it)'],
      ],
    ],
    [
      'a read-only view',
      {},
      undefined,
      true,
      [
        ['create_issue', 'a read-only view serves only tools that declare readOnlyHint: true'],
        ['delete_repo', 'a read-only view serves only tools that declare readOnlyHint: true'],
      ],
    ],
    [
      "the view's filter comes before read-only",
      {},
      { filter: [{ include: 'search_*' }] },
      true,
      [
        ['create_issue', "the view's filter for this server (no rule matched; include rules exist, so it is excluded)"],
        ['delete_repo', "the view's filter for this server (no rule matched; include rules exist, so it is excluded)"],
      ],
    ],
  ])('%s', (_name, own, view, readOnly, expected) => {
    expect(hiddenTools('github', TOOLS, own, view, readOnly).map((h) => [h.tool, h.why])).toEqual(expected);
  });
});
