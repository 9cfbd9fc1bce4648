import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { DECLARATION_DEFAULTS } from '../../src/code/declaration-limits.js';
import { declarationsOf, toolMember } from '../../src/code/declarations.js';
import { oversizedSchemas } from '../../src/proxy/pins/schema-size-rule.js';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { fileTools, SERVERS } from '../helpers/upstreams.js';

/**
 * Code mode's declarations through serve (issue 66, finding 1): a tool whose schema refers to
 * itself 22 times is described and found in a few kilobytes, with the view's own caps; the real
 * reference servers' tools are declared whole under the defaults, and none is reported by the
 * scanner's schema rule.
 */

const BOMB = {
  name: 'lookup',
  description: 'Looks a thing up.',
  inputSchema: { type: 'object', properties: Object.fromEntries(Array.from({ length: 22 }, (_, i) => [`p${i}`, { $ref: '#' }])) },
};
const WIDE = {
  name: 'wide',
  description: 'Takes many fields.',
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`field${i}`, { type: 'string', description: `Field ${i}: ${'words '.repeat(20)}` }])),
  },
};

const clients: Client[] = [];
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
});

async function served(code?: object): Promise<Client> {
  const dir = tempDir();
  const tools = join(dir, 'evil.json');
  writeFileSync(tools, JSON.stringify([BOMB, WIDE]));
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { evil: { ...fileTools(tools) } },
      serve: { exposure: 'code', ...(code ? { code } : {}) },
    }),
  );
  const { client } = await serveStdioInProcess({ config, flags: { exposure: undefined } });
  clients.push(client);
  return client;
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const call = (client: Client, name: string, args: object) => client.callTool({ name, arguments: args as Record<string, unknown> }) as Promise<CallToolResult>;

describe('describe and search of a schema that refers to itself', () => {
  it('answer in a few kilobytes, the recursion cut with a note, again and again', async () => {
    const client = await served();
    for (let i = 0; i < 3; i++) {
      const described = await call(client, 'mcpkit_describe_tool', { name: 'evil.lookup' });
      expect(described.isError).toBeFalsy();
      expect(Buffer.byteLength(textOf(described))).toBeLessThan(5000);
      expect(textOf(described)).toContain('p21?: unknown /* cut: recursive $ref "#" */;');
      const found = await call(client, 'mcpkit_search_tools', { query: 'looks a thing up', limit: 50 });
      expect(Buffer.byteLength(textOf(found))).toBeLessThan(DECLARATION_DEFAULTS.maxAnswerBytes);
      expect((found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('evil__lookup');
    }
  });

  it("the view's caps hold: max_declaration_bytes cuts a wide tool, max_answer_bytes names what does not fit", async () => {
    const client = await served({ max_declaration_bytes: 3000, max_answer_bytes: 4000 });
    const described = await call(client, 'mcpkit_describe_tool', { name: 'evil.wide' });
    expect(Buffer.byteLength(textOf(described))).toBeLessThanOrEqual(4000);
    expect(textOf(described)).toMatch(/\/\* cut: max_declaration_bytes \(\d+\) reached \*\//);
    const found = await call(client, 'mcpkit_search_tools', { query: 'fields thing', limit: 50 });
    expect(Buffer.byteLength(textOf(found))).toBeLessThanOrEqual(4000);
  });
});

describe('the reference servers from npm', () => {
  it('every tool of server-everything, -memory and -filesystem declares whole under the defaults, and none expands past the cap', async () => {
    for (const server of [SERVERS.everything, SERVERS.memory, SERVERS.filesystem(tempDir())]) {
      const client = new Client({ name: 'declarations-real', version: '1' });
      clients.push(client);
      await client.connect(
        new StdioClientTransport({ ...server, env: cleanEnv({ MEMORY_FILE_PATH: join(tempDir(), 'memory.json') }) as Record<string, string> }),
      );
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(5);
      const declared = tools.map((t) => ({
        group: 's',
        name: t.name,
        published: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        outputSchema: t.outputSchema,
      }));
      for (const tool of declared) {
        const member = toolMember(tool, '    ');
        expect(member, tool.name).not.toContain('cut:');
        expect(Buffer.byteLength(member), tool.name).toBeLessThan(DECLARATION_DEFAULTS.maxDeclarationBytes / 4);
        expect(oversizedSchemas(tool), tool.name).toEqual([]);
      }
      expect(Buffer.byteLength(declarationsOf(declared))).toBeLessThan(DECLARATION_DEFAULTS.maxAnswerBytes / 2);
    }
  });
});
