import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { stopChild } from '../helpers/cli.js';
import { serveHttpChild } from '../helpers/serve.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * `mcpkit serve --http`, the process, with the reference servers from npm (issue 70): when it says
 * it listens, its servers are connected (asked of /health before any MCP request), so the first
 * tools/list starts none of them; a 2026-07-28 client's first listing is served too (its era's
 * connections start on its first use).
 */
let served: Awaited<ReturnType<typeof serveHttpChild>> | undefined;
afterAll(async () => {
  if (served) await stopChild(served.child);
});

type Health = { upstreams: { name: string; state: string; connections?: { era: string; state: string }[] }[] };

async function firstListing(url: string, era: 'legacy' | 'modern'): Promise<string[]> {
  const client = new Client({ name: `first-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  try {
    return (await client.listTools()).tools.map((t) => t.name).filter((name) => name.includes('__'));
  } finally {
    await client.close();
  }
}

describe('serve --http, started', () => {
  it('says it listens once everything and memory are connected; the first listing of either era names their tools', async () => {
    served = await serveHttpChild(writeConfig({ mcp_servers: { everything: SERVERS.everything, memory: SERVERS.memory }, serve: { exposure: 'direct' } }));
    expect(served.stderr()).not.toMatch(/still starting|not connected/);
    const health = (await (await fetch(`${served.url}/health`)).json()) as Health;
    expect(Object.fromEntries(health.upstreams.map((u) => [u.name, u.state]))).toEqual({ everything: 'ready', memory: 'ready' });

    const legacy = await firstListing(served.url, 'legacy');
    expect(legacy).toContain('everything__echo');
    expect(legacy).toContain('memory__read_graph');
    // A 2026-07-28 connection offers the server more (input_required), and server-everything lists more to it.
    const modern = await firstListing(served.url, 'modern');
    expect(modern).toEqual(expect.arrayContaining(legacy));
  }, 60_000);
});
