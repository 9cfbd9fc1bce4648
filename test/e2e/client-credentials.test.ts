import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChild } from '../helpers/cli.js';
import { type InProcessServe, serveHttpAsCli } from '../helpers/in-process.js';
import { serveHttpChild } from '../helpers/serve.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * Each agent its own upstream identity: a gateway (serve --http) whose named clients reach a
 * stdio server with their own environment and a remote server with their own headers, over
 * connections of their own; a client without credentials reaches a shared server as the gateway
 * and is refused a per_client one. The remote upstream is another real serve --http with named
 * clients, whose audit log says who reached it; it serves in this process (helpers/in-process.ts:
 * `serve --http`'s code, with an environment of its own): what is asked of it is its answers and
 * its log. The gateway stays a process: its clients' own connections start boxed servers of their
 * own, which end with its process (a gateway closed in this process left them running).
 */

const ERAS = ['2025-11-25', '2026-07-28'] as const;
let upstream: InProcessServe;
let gateway: Awaited<ReturnType<typeof serveHttpChild>>;
let upstreamAudit: string;
const opened: Client[] = [];

beforeAll(async () => {
  const upstreamConfig = writeConfig({
    mcp_servers: {},
    serve: {
      groups: ['config'],
      exposure: 'direct',
      audit_log: 'audit.jsonl',
      clients: { 'up-gateway': { token: 'up-gateway-token' }, 'up-alice': { token: 'up-alice-token' } },
    },
  });
  upstreamAudit = join(dirname(upstreamConfig), 'audit.jsonl');
  upstream = await serveHttpAsCli(upstreamConfig);
  gateway = await serveHttpChild(
    writeConfig({
      mcp_servers: {
        everything: { ...SERVERS.everythingProcess, env: { GITHUB_TOKEN: 'gateway-gh' } },
        upstream: { url: `${upstream.url}/mcp`, headers: { Authorization: 'Bearer up-gateway-token' } },
        private: { ...SERVERS.everythingProcess, per_client: true },
      },
      serve: {
        token: 'admin-token',
        exposure: 'direct',
        clients: {
          alice: {
            token: 'alice-token',
            credentials: {
              everything: { env: { GITHUB_TOKEN: 'alice-gh' } },
              upstream: { headers: { Authorization: 'Bearer up-alice-token' } },
              private: { env: { GITHUB_TOKEN: 'alice-private' } },
            },
          },
          bob: { token: 'bob-token' },
        },
      },
    }),
  );
}, 60_000);
afterAll(async () => {
  await Promise.allSettled(opened.map((c) => c.close()));
  await Promise.allSettled([gateway && stopChild(gateway.child), upstream?.close()]);
});

async function connect(token: string, era: (typeof ERAS)[number]) {
  const client = new Client({ name: `agent-${token}`, version: '1.0' }, era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  opened.push(client);
  return client;
}
const text = (r: unknown) => ((r as CallToolResult).content?.[0] as { text?: string } | undefined)?.text ?? '';
async function outcome(client: Client, name: string, args: Record<string, unknown> = {}) {
  try {
    return { result: (await client.callTool({ name, arguments: args }, { timeout: 30_000 })) as CallToolResult };
  } catch (error) {
    return { message: (error as Error).message };
  }
}

describe.each(ERAS)('each client its own upstream identity, %s', (era) => {
  it("a stdio server gets the client's env, a remote one its headers; another client reaches them as the gateway", async () => {
    const alice = await connect('alice-token', era);
    const bob = await connect('bob-token', era);
    expect(text((await outcome(alice, 'everything__get-env')).result)).toContain('"GITHUB_TOKEN": "alice-gh"');
    expect(text((await outcome(bob, 'everything__get-env')).result)).toContain('"GITHUB_TOKEN": "gateway-gh"');

    const before = readAudit().length;
    expect((await outcome(alice, 'upstream__config_path')).result?.isError).toBeFalsy();
    expect((await outcome(bob, 'upstream__config_path')).result?.isError).toBeFalsy();
    expect(await waitFor(() => readAudit().length >= before + 2, 10_000)).toBe(true);
    const who = readAudit()
      .slice(before)
      .map((line) => line.client);
    expect(who.sort()).toEqual(['up-alice', 'up-gateway']);
  }, 60_000);

  it('a per_client server serves the client with credentials, and refuses one without, saying what to do', async () => {
    const alice = await connect('alice-token', era);
    const bob = await connect('bob-token', era);
    expect(text((await outcome(alice, 'private__get-env')).result)).toContain('"GITHUB_TOKEN": "alice-private"');
    const refused = await outcome(bob, 'private__get-env');
    const said = refused.message ?? text(refused.result);
    expect(said).toMatch(/reached only with each client's own credentials/);
    expect(said).not.toContain('GITHUB_TOKEN');
    expect(JSON.stringify(refused.result?.structuredContent ?? refused.message)).toContain('serve.clients.bob.credentials.private');
    // The admin is no client of its own either: refused, not served as the gateway.
    const admin = await connect('admin-token', era);
    const adminSaid = await outcome(admin, 'private__get-env');
    expect(adminSaid.message ?? text(adminSaid.result)).toMatch(/reached only with each client's own credentials/);
  }, 60_000);
});

function readAudit(): { client?: string }[] {
  try {
    return readFileSync(upstreamAudit, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { client?: string });
  } catch {
    return [];
  }
}
