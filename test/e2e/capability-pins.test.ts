import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cleanEnv, runCommand } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * A server may list more tools to a client that declares more (server-everything lists three more
 * when the client offers elicitation and sampling, as the connection 2026 clients share does). A
 * person approves a server once, not once per capability set: what a new set adds is pinned on
 * first use, and the lock file says under which sets.
 */

let served: InProcessServe;
let config = '';
const clients: Client[] = [];

beforeAll(async () => {
  config = writeConfig({ mcp_servers: { everything: SERVERS.everything }, serve: { exposure: 'direct' } });
  // serve --http in this process: what it pins and says is the subject, not its process.
  served = await serveHttpInProcess(config, { env: cleanEnv() });
}, 30_000);
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await served?.close();
});

async function names(era: 'legacy' | 'modern'): Promise<string[]> {
  const client = new Client({ name: `caps-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
  clients.push(client);
  return (await client.listTools()).tools.map((t) => t.name);
}

describe('pins per capability set', () => {
  it('a 2026 client sees the tools the server adds for its capabilities, pinned on first use, not withheld as new', async () => {
    const legacy = await names('legacy');
    expect(legacy).toContain('everything__echo');
    expect(legacy).not.toContain('everything__trigger-elicitation-request');
    const modern = await names('modern');
    expect(modern).toContain('everything__trigger-elicitation-request');
    expect(modern).toContain('everything__trigger-sampling-request');
    const lockFile = join(dirname(config), 'mcpkit.lock.yaml');
    expect(
      await waitFor(() => {
        try {
          const lock = parse(readFileSync(lockFile, 'utf8')) as {
            servers: Record<string, Record<string, unknown>>;
            capability_sets?: Record<string, string[]>;
          };
          return Object.hasOwn(lock.servers.everything ?? {}, 'trigger-elicitation-request') && lock.capability_sets?.everything?.length === 2;
        } catch {
          return false;
        }
      }, 5_000),
    ).toBe(true);
    const lock = parse(readFileSync(lockFile, 'utf8')) as { capability_sets: Record<string, string[]> };
    expect(lock.capability_sets.everything).toEqual(['', 'elicitation,sampling']);
    expect(served.lines.join('\n')).toMatch(
      /pinned 3 more tools of server "everything", which it lists to a client offering elicitation,sampling, on first use .*: trigger-elicitation-request, trigger-url-elicitation, trigger-sampling-request/,
    );
  }, 30_000);

  it('a server an agent added: server diff shows what 2026 clients are listed too, and one approval serves both eras', async () => {
    const agentConfig = writeConfig({ mcp_servers: { everything: { ...SERVERS.everything, added_by: 'agent' } }, serve: { exposure: 'direct' } });
    const env = cleanEnv({ MCPKIT_CONFIG: agentConfig });
    const diff = await runCommand(['server', 'diff', 'everything', '--json'], { env });
    const review = JSON.parse(diff.stdout) as {
      digest_short: string;
      added: { name: string }[];
      listed_under: { sets: string[]; only: Record<string, string[]> };
    };
    expect(review.listed_under).toEqual({
      sets: ['', 'elicitation,sampling'],
      only: { 'elicitation,sampling': ['trigger-elicitation-request', 'trigger-url-elicitation', 'trigger-sampling-request'] },
    });
    expect(review.added.map((t) => t.name)).toContain('trigger-sampling-request');
    expect((await runCommand(['server', 'diff', 'everything'], { env })).stdout).toContain(
      'Listed only to a client offering elicitation,sampling (2026-07-28 clients, through mcpkit): trigger-elicitation-request, trigger-url-elicitation, trigger-sampling-request',
    );
    const approved = await runCommand(['server', 'approve', 'everything', '--digest', review.digest_short], { env });
    expect(approved.code, approved.stderr).toBe(0);
    const lock = parse(readFileSync(join(dirname(agentConfig), 'mcpkit.lock.yaml'), 'utf8')) as { capability_sets: Record<string, string[]> };
    expect(lock.capability_sets.everything).toEqual(['', 'elicitation,sampling']);

    const agentServed = await serveHttpInProcess(agentConfig, { env: cleanEnv() });
    try {
      const list = async (era: 'legacy' | 'modern') => {
        const client = new Client({ name: `agent-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
        await client.connect(new StreamableHTTPClientTransport(new URL(`${agentServed.url}/mcp`)));
        clients.push(client);
        return (await client.listTools()).tools.map((t) => t.name);
      };
      expect(await list('legacy')).toContain('everything__echo');
      const modern = await list('modern');
      // Without the second listing in the review, these three were withheld as new until a second approval nobody could review.
      expect(modern).toEqual(expect.arrayContaining(['everything__trigger-elicitation-request', 'everything__trigger-sampling-request', 'everything__echo']));
      expect(agentServed.lines.join('\n')).not.toContain('withheld');
    } finally {
      await agentServed.close();
    }
  }, 60_000);
});
