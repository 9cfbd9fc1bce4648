import { describe, expect, it } from 'vitest';
import type { Who } from '../../src/mcp/http/client-report.js';
import { routesToTry } from '../../src/mcp/http/dry-run-routes.js';

const clients = { viewer: { views: ['docs', 'research'] }, everywhere: {}, nowhere: { views: [] as string[] }, both: { views: ['default', 'docs'] } };
const client = (name: string): Who => ({ kind: 'client', name, row: {} as never });

describe('the routes clients --who tries without --view', () => {
  it.each<[string, Who, string[]]>([
    ["a client's own views, in its order (not /mcp it may not use)", client('viewer'), ['docs', 'research']],
    ['"default" where the client names it', client('both'), ['default', 'docs']],
    ['/mcp first, then every view, for a client of every route', client('everywhere'), ['default', 'docs', 'research']],
    ['/mcp for a client of no MCP route (refused there, saying so)', client('nowhere'), ['default']],
    ["a view token's views", { kind: 'view-token', name: 'token:x', views: ['research'] }, ['research']],
    ['/mcp for serve.token', { kind: 'serve-token', name: 'token:serve' }, ['default']],
  ])('%s', (_what, who, want) => expect(routesToTry(who, clients, ['docs', 'research'])).toEqual(want));
});
