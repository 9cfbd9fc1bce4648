import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClientRequestSchema } from '@modelcontextprotocol/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaToolNames, type MetaOp } from '../../src/proxy/catalog/meta-tools.js';
import { ROUTE_KINDS, routePath, type Route } from '../../src/mcp/access/route-access.js';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { SERVERS } from '../helpers/upstreams.js';

/**
 * Boundary "client -> upstream" (docs/SECURITY.md): a named client's condition on arguments holds
 * on every path a tool call can take to an upstream. The paths are walked from lists the code
 * keeps: the SDK's client requests (a method added to the protocol fails this test until it is
 * classed), the route table (each route that serves MCP), and the meta-tool operations of
 * every exposure (a new operation fails this test until it is classed). The client "bot" may
 * never send the word "forbidden" in any argument; the client "other" may.
 */
const METHODS = (ClientRequestSchema as unknown as { options: { shape: { method: { value: string } } }[] }).options.map((o) => o.shape.method.value);

/** Which methods carry a tool's arguments to an upstream: conditions are on tools; the rest are governed by names (attack-rules.test.ts). */
const CARRIES_TOOL_ARGUMENTS: Record<string, boolean> = {
  'tools/call': true,
  ping: false,
  initialize: false,
  'server/discover': false,
  'logging/setLevel': false,
  'resources/unsubscribe': false,
  'tools/list': false,
  'prompts/list': false,
  'resources/list': false,
  'resources/templates/list': false,
  'prompts/get': false,
  'resources/read': false,
  'resources/subscribe': false,
  'completion/complete': false,
  'subscriptions/listen': false,
};

/** Each route kind: the MCP route it names here, or none for a route that serves no MCP. */
const MCP_ROUTES: Record<(typeof ROUTE_KINDS)[number], Route | undefined> = {
  mcp: { kind: 'mcp' },
  view: { kind: 'view', view: 'direct' },
  views: undefined,
  'view-info': undefined,
  health: undefined,
  metrics: undefined,
};

/** Each meta-tool operation: how it reaches a tool with the forbidden argument, or that it calls none. */
const OPS: Record<MetaOp, ((name: string) => { name: string; arguments: Record<string, unknown> }) | 'calls nothing'> = {
  search: 'calls nothing',
  describe: 'calls nothing',
  call: (name) => ({ name, arguments: { name: 'echo', arguments: { message: 'forbidden' } } }),
  run: (name) => ({
    name,
    arguments: { code: `try { return await tools.everything.echo({ message: 'forbidden' }); } catch (e) { return { refused: e.code }; }` },
  }),
};

let served: InProcessServe;
beforeAll(async () => {
  const dir = tempDir();
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { everything: SERVERS.everything },
      composite_tools: {
        relay: {
          inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
          chain: [{ tool: 'everything.echo', args: { message: '{inputs.text}' } }],
        },
      },
      tool_views: {
        direct: { servers: ['everything'], tools: ['relay'], exposure: 'direct' },
        search: { servers: ['everything'], exposure: 'search' },
        code: { servers: ['everything'], exposure: 'code' },
      },
      serve: {
        clients: {
          bot: { token: 'tok-bot', conditions: { '*': { when: '!json(args).contains("forbidden")', message: 'No forbidden words.' } } },
          other: { token: 'tok-other' },
        },
      },
    }),
  );
  served = await serveHttpInProcess(config, { env: cleanEnv(), exposure: undefined });
});
afterAll(async () => served?.close());

async function connect(path: string, token: string, era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client(
    { name: 'attack-conditions', version: '1' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

const said = (r: unknown) => JSON.stringify(r);

describe("a client's condition on every path to an upstream", () => {
  it('every method of the protocol is classed here', () => {
    for (const method of METHODS) expect(CARRIES_TOOL_ARGUMENTS[method], `${method}: does it carry a tool's arguments?`).toBeDefined();
    expect(METHODS.filter((m) => CARRIES_TOOL_ARGUMENTS[m])).toEqual(['tools/call']);
  });

  const routes = ROUTE_KINDS.flatMap((kind) => (MCP_ROUTES[kind] ? [[kind, routePath(MCP_ROUTES[kind])] as const] : []));
  it.each(routes.flatMap(([kind, path]) => (['legacy', 'modern'] as const).map((era) => [kind, path, era] as const)))(
    'route %s (%s), %s era: tools/call, the hot path and a composite are refused; another client is served',
    async (kind, path, era) => {
      const tool = kind === 'mcp' ? 'everything__echo' : 'echo';
      const bot = await connect(path, 'tok-bot', era);
      const other = await connect(path, 'tok-other', era);
      try {
        for (let round = 0; round < 2; round++) {
          expect(said(await bot.callTool({ name: tool, arguments: { message: 'fine' } }))).toContain('Echo: fine');
          const refused = (await bot.callTool({ name: tool, arguments: { message: 'forbidden' } })) as CallToolResult;
          expect(refused.isError, said(refused)).toBe(true);
          expect(said(refused)).toContain('CONDITION_FAILED');
          expect(said(refused)).toContain('No forbidden words.');
          expect(said(await other.callTool({ name: tool, arguments: { message: 'forbidden' } }))).toContain('Echo: forbidden');
        }
        if (kind === 'view') {
          const composite = (await bot.callTool({ name: 'relay', arguments: { text: 'forbidden' } })) as CallToolResult;
          expect(said(composite)).toContain('CONDITION_FAILED');
        }
      } finally {
        await Promise.allSettled([bot.close(), other.close()]);
      }
    },
  );

  it.each((['search', 'code'] as const).flatMap((view) => Object.entries(metaToolNames(view, view)).map(([op, name]) => [view, op as MetaOp, name])))(
    'view %s, meta-tool %s (%s)',
    async (view, op, name) => {
      const how = OPS[op as MetaOp];
      if (how === 'calls nothing') return;
      const bot = await connect(`/view/${view}/mcp`, 'tok-bot', 'legacy');
      try {
        const result = await bot.callTool(how(name));
        expect(said(result)).toContain('CONDITION_FAILED');
        expect(said(result)).not.toContain('Echo: forbidden');
      } finally {
        await bot.close();
      }
    },
  );
});
