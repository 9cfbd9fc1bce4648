import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, stopChild, tempDir } from '../helpers/cli.js';
import { serveHttpChild } from '../helpers/serve.js';
import { fileTools, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * Issue 66, finding 1, as it was found: an upstream (a real MCP server, test/fixtures/file-tools-
 * server.mjs) publishes a tool whose inputSchema is 22 properties of `{$ref: "#"}`; `serve --http`
 * with code exposure describes it to four clients at once and stays responsive; the scanner
 * reports the schema at review.
 */

const TOKEN = 'declarations-token';
const BOMB = {
  name: 'lookup',
  description: 'Looks a thing up.',
  inputSchema: { type: 'object', properties: Object.fromEntries(Array.from({ length: 22 }, (_, i) => [`p${i}`, { $ref: '#' }])) },
};
const PLAIN = { name: 'echo', description: 'Echoes its message.', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } };

let config: string;
let served: Awaited<ReturnType<typeof serveHttpChild>>;
const clients: Client[] = [];

beforeAll(async () => {
  const tools = join(tempDir(), 'evil.json');
  writeFileSync(tools, JSON.stringify([BOMB, PLAIN]));
  config = writeConfig({ mcp_servers: { evil: { ...fileTools(tools) } }, serve: { exposure: 'code' } });
  served = await serveHttpChild(config, ['--token', TOKEN]);
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  if (served) await stopChild(served.child);
});

async function client(): Promise<Client> {
  const made = new Client({ name: 'declarations-e2e', version: '1' });
  await made.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  clients.push(made);
  return made;
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe('a recursive schema from a real upstream, behind serve --http with code exposure', () => {
  it('four describes at once answer small while /health answers each time it is polled, never stalled', async () => {
    const four = await Promise.all([client(), client(), client(), client()]);
    // The upstream starts, is listed and pinned on first use: done first, by describing the other
    // tool, so what is measured is the four describes of the recursive one (declared by none yet).
    await fetch(`${served.url}/health`).then((r) => r.text());
    const plain = (await four[0]!.callTool({ name: 'mcpkit_describe_tool', arguments: { name: 'evil.echo' } })) as CallToolResult;
    expect(textOf(plain)).toContain('message?: string;');
    expect(await waitFor(() => existsSync(join(dirname(config), 'mcpkit.lock.yaml')), 20_000)).toBe(true);
    const latencies: number[] = [];
    let describing = true;
    const polling = (async () => {
      while (describing) {
        const started = performance.now();
        const health = await fetch(`${served.url}/health`);
        await health.text();
        latencies.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const answers = await Promise.all(
      four.map((c) => c.callTool({ name: 'mcpkit_describe_tool', arguments: { name: 'evil.lookup' } }) as Promise<CallToolResult>),
    ).finally(() => (describing = false));
    await polling;
    for (const answer of answers) {
      expect(answer.isError, JSON.stringify(answer).slice(0, 500)).toBeFalsy();
      expect(Buffer.byteLength(textOf(answer))).toBeLessThan(5000);
      expect(textOf(answer).match(/recursive \$ref "#"/g)).toHaveLength(22);
    }
    expect(latencies.length).toBeGreaterThan(0);
    // The acceptance criterion of the issue itself: serve's main thread never stalls on a schema
    // (the old walk blocked /health 21.7 s for four describes). Its figure is 200 ms on a quiet
    // machine; asserted with 5x room, as a full run on 2 cores at a load of 15-20 saw 222 ms for
    // a /health that waited on nothing of this: 1 s still tells a stall of 21.7 s by 20x.
    expect(Math.max(...latencies)).toBeLessThan(1000);
  });

  it('a search that finds it answers small too', async () => {
    const c = await client();
    const found = (await c.callTool({ name: 'mcpkit_search_tools', arguments: { query: 'looks a thing up', limit: 3 } })) as CallToolResult;
    expect(found.isError).toBeFalsy();
    expect((found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('evil__lookup');
    expect(Buffer.byteLength(textOf(found))).toBeLessThan(10_000);
  });

  it('mcpkit server scan reports the schema (MCPK016 schema-expansion) once serve has pinned it', async () => {
    const lock = join(dirname(config), 'mcpkit.lock.yaml');
    expect(await waitFor(() => existsSync(lock), 20_000)).toBe(true);
    const scanned = await runCommand(['server', 'scan', '--json', '--fail-on', 'medium', '--config', config]);
    const result = JSON.parse(scanned.stdout) as { findings: { rule: string; tool: string; field: string; severity: string }[] };
    expect(result.findings.filter((f) => f.rule === 'MCPK016')).toEqual([
      expect.objectContaining({ tool: 'lookup', field: 'inputSchema', severity: 'medium' }),
    ]);
    expect(scanned.code).toBe(1);
  });
});
