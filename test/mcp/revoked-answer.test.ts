import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';
import { FIXTURES, waitFor } from '../helpers/upstreams.js';

/**
 * Boundary "client -> upstream" over time (docs/SECURITY.md), the answer's half: a reload that
 * takes a client's token away cancels its calls in flight and then ends its sessions, and the
 * sessions end only once each cancelled call's answer has left on its own stream
 * (mcp/http/revocations.ts waits for that, not for a clock): the client reads why, FORBIDDEN,
 * rather than a stream cut under it.
 */
const config = (clients: Record<string, object>) => JSON.stringify({ mcp_servers: { slow: FIXTURES.tasks }, serve: { clients } });

const ERAS = ['legacy', 'modern'] as const;

async function client(url: string, token: string, era: (typeof ERAS)[number]): Promise<Client> {
  const c = new Client({ name: `c-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {});
  await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return c;
}

const number = (result: unknown) => Number((result as { content: { text: string }[] }).content[0]!.text);

describe("a revoked client's call in flight", () => {
  it('is answered FORBIDDEN on its own stream before its session ends, in both eras at once', async () => {
    const dir = tempDir();
    const file = join(dir, 'mcpkit.yaml');
    const kept = { admin: { token: 'tok-admin' } };
    writeFileSync(file, config({ ...kept, legacy: { token: 'tok-legacy' }, modern: { token: 'tok-modern' } }));
    const served = await serveHttpInProcess(file, { env: cleanEnv() });
    const opened: Client[] = [];
    try {
      // Each era has its own connection to the upstream, so each its own count of calls begun.
      for (const era of ERAS) opened.push(await client(served.url, 'tok-admin', era), await client(served.url, `tok-${era}`, era));
      const [legacyAdmin, legacyAgent, modernAdmin, modernAgent] = opened as [Client, Client, Client, Client];
      const begun = async (admin: Client) => number(await admin.callTool({ name: 'slow__started', arguments: {} }));
      const before = await Promise.all([begun(legacyAdmin), begun(modernAdmin)]);
      const outcomes = [legacyAgent, modernAgent].map((agent) =>
        agent.callTool({ name: 'slow__slow_compute', arguments: { seconds: 60 } }).then(
          (result) => ({ result: JSON.stringify(result) }),
          (error: Error) => ({ error: error.message }),
        ),
      );
      const running = async () => (await begun(legacyAdmin)) > before[0]! && (await begun(modernAdmin)) > before[1]!;
      expect(await waitFor(running, 30_000), 'both calls reached the upstream').toBe(true);

      // The pins' lock file, written on first use, may wake a reload of its own (unchanged): wait for the one applied.
      const applied = (async () => {
        while ((await served.nextReload()).outcome !== 'applied');
      })();
      writeFileSync(file, config(kept));
      await applied;

      for (const outcome of await Promise.all(outcomes)) {
        expect(outcome, 'answered, not cut').toHaveProperty('result');
        expect('result' in outcome && outcome.result).toMatch(/FORBIDDEN.*access was taken away/);
      }
    } finally {
      await Promise.allSettled(opened.map((c) => c.close()));
      await served.close();
    }
  }, 90_000);
});
