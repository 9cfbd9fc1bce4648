import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClientRequestSchema } from '@modelcontextprotocol/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { SERVERS } from '../helpers/upstreams.js';

/**
 * Boundary "client -> client" (docs/SECURITY.md): a named client's rules hold for every MCP
 * method, in both eras, not only for tools/list and tools/call. The methods are those of the
 * SDK's own list of client requests, so a method added to the protocol fails this test until it
 * is classed here. The client may use `echo`, `simple-prompt` and the resource `architecture.md`;
 * everything else of server-everything is out of its reach.
 */
const METHODS = (ClientRequestSchema as unknown as { options: { shape: { method: { value: string } } }[] }).options.map((o) => o.shape.method.value);

/** What each method does with the client's rules. */
const CLASSES: Record<string, 'lists' | 'names' | 'none'> = {
  ping: 'none',
  initialize: 'none',
  'server/discover': 'none',
  'logging/setLevel': 'none',
  'resources/unsubscribe': 'none',
  'tools/list': 'lists',
  'prompts/list': 'lists',
  'resources/list': 'lists',
  'resources/templates/list': 'lists',
  'tools/call': 'names',
  'prompts/get': 'names',
  'resources/read': 'names',
  'resources/subscribe': 'names',
  'completion/complete': 'names',
  'subscriptions/listen': 'names',
};

const STATIC = 'demo://resource/static/document/';
const TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';

let served: InProcessServe;

beforeAll(async () => {
  const dir = tempDir();
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { everything: SERVERS.everything },
      tool_views: { e: { servers: ['everything'] } },
      serve: {
        clients: {
          reader: { token: 'tok-reader', views: ['e'], tools: ['+ echo', '+ simple-prompt', '+ architecture.md', '- *'] },
          admin: { token: 'tok-admin' },
        },
      },
    }),
  );
  served = await serveHttpInProcess(config, { env: cleanEnv() });
});
afterAll(async () => served?.close());

async function reader(era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client({ name: `reader-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {});
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${served.url}/view/e/mcp`), { requestInit: { headers: { authorization: 'Bearer tok-reader' } } }),
  );
  return client;
}

describe("a named client's rules through every MCP method", () => {
  it('every method of the protocol is classed here', () => {
    expect(METHODS.length).toBeGreaterThan(10);
    for (const method of METHODS) expect(CLASSES[method], `${method}: class it as lists, names or none`).toBeDefined();
  });

  it.each(['legacy', 'modern'] as const)('%s: what is outside the rules is neither listed nor reached', async (era) => {
    const client = await reader(era);
    try {
      // lists
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['simple-prompt']);
      expect((await client.listResources()).resources.map((r) => r.name)).toEqual(['architecture.md']);
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
      // names: what the rules allow is reached...
      expect(JSON.stringify(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toContain('hi');
      expect((await client.getPrompt({ name: 'simple-prompt' })).messages.length).toBeGreaterThan(0);
      expect((await client.readResource({ uri: `${STATIC}architecture.md` })).contents.length).toBe(1);
      // ...and nothing else, by any method.
      const refused = await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }).catch((e: Error) => ({ isError: true, content: e.message }));
      expect(refused.isError).toBe(true);
      await expect(client.getPrompt({ name: 'completable-prompt', arguments: { department: 'E', name: 'x' } })).rejects.toThrow();
      await expect(client.readResource({ uri: `${STATIC}features.md` })).rejects.toThrow();
      await expect(client.readResource({ uri: 'demo://resource/dynamic/text/1' })).rejects.toThrow();
      await expect(client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } })).rejects.toThrow(
        /prompt/i,
      );
      await expect(client.complete({ ref: { type: 'ref/resource', uri: TEMPLATE }, argument: { name: 'resourceId', value: '1' } })).rejects.toThrow(
        /template/i,
      );
      if (era === 'legacy') {
        await expect(client.subscribeResource({ uri: `${STATIC}features.md` })).rejects.toThrow();
        await client.subscribeResource({ uri: `${STATIC}architecture.md` });
      } else {
        await expect(client.listen({ resourceSubscriptions: [`${STATIC}features.md`] })).rejects.toThrow(/does not show/);
        await expect(client.listen({ resourceSubscriptions: ['nothing://at/all'] })).rejects.toThrow(/does not show/);
        const listening = await client.listen({ resourceSubscriptions: [`${STATIC}architecture.md`] });
        expect(listening.honoredFilter.resourceSubscriptions).toEqual([`${STATIC}architecture.md`]);
        await listening.close();
      }
    } finally {
      await client.close();
    }
  });

  it('a client without rules reaches what the view shows, completion included', async () => {
    const client = new Client({ name: 'admin', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url}/view/e/mcp`), { requestInit: { headers: { authorization: 'Bearer tok-admin' } } }),
    );
    try {
      const done = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } });
      expect(done.completion.values).toContain('Engineering');
      const byTemplate = await client.complete({ ref: { type: 'ref/resource', uri: TEMPLATE }, argument: { name: 'resourceId', value: '1' } });
      expect(byTemplate.completion.values).toContain('1');
    } finally {
      await client.close();
    }
  });
});
