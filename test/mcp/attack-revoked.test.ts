import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';
import { FIXTURES, waitFor } from '../helpers/upstreams.js';

/**
 * Boundary "client -> upstream" over time (docs/SECURITY.md): a client removed from the config,
 * or a token revoked, has its calls in flight cancelled at once, in both eras and on the hot path
 * too: the upstream is told (notifications/cancelled), the call ends, and nothing of it comes back.
 */
const config = (clients: Record<string, object>) => JSON.stringify({ mcp_servers: { slow: FIXTURES.tasks }, serve: { clients } });

async function client(url: string, token: string, era: 'legacy' | 'modern'): Promise<Client> {
  const c = new Client({ name: `c-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {});
  await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return c;
}

describe("a removed client's calls in flight", () => {
  it.each(['legacy', 'modern'] as const)('%s: are cancelled upstream as the reload removes the client', async (era) => {
    const dir = tempDir();
    const file = join(dir, 'mcpkit.yaml');
    writeFileSync(file, config({ agent: { token: 'tok-agent' }, admin: { token: 'tok-admin' } }));
    const served = await serveHttpInProcess(file, { env: cleanEnv() });
    // Of the same era: each era has its own connection to the server, and so its own count.
    const admin = await client(served.url, 'tok-admin', era);
    const agent = await client(served.url, 'tok-agent', era);
    try {
      const cancelled = async () =>
        Number(((await admin.callTool({ name: 'slow__cancellations', arguments: {} })) as { content: { text: string }[] }).content[0]!.text);
      const before = await cancelled();
      const started = Date.now();
      const call = agent.callTool({ name: 'slow__slow_compute', arguments: { seconds: 8 } }).then(
        (r) => ({ settled: Date.now(), result: r as unknown }),
        (error: Error) => ({ settled: Date.now(), error }),
      );
      await new Promise((r) => setTimeout(r, 500));
      const reloaded = served.nextReload();
      writeFileSync(file, config({ admin: { token: 'tok-admin' } }));
      await reloaded;
      expect(await waitFor(async () => (await cancelled()) > before, 5000), 'the upstream was told').toBe(true);
      const outcome = await call;
      expect(outcome.settled - started).toBeLessThan(4000);
      // Answered with why, where the client still listened; never with the call's own result.
      const said = JSON.stringify('result' in outcome ? outcome.result : outcome.error.message);
      expect(said).not.toMatch(/computed|done|result of/i);
      if ('result' in outcome) expect(said).toMatch(/FORBIDDEN.*access was taken away/);
    } finally {
      await agent.close().catch(() => undefined);
      await admin.close();
      await served.close();
    }
  });
});
