import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';
import { alive, childPidsNamed, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * serve's end closes every upstream connection it made, the ones a named client's own credentials
 * opened included (src/app/client-hubs.ts close): a serve closed in a process that goes on (a test's,
 * an embedding) leaves no server behind. As a process, bubblewrap's --die-with-parent hid it when
 * the server was boxed; an unboxed one outlived serve.
 */
const servers = () => childPidsNamed(process.pid, 'server-everything');

describe("serve's end", () => {
  it("closes the servers a client's own credentials started, and the shared ones", async () => {
    const before = new Set(await servers());
    const served = await serveHttpInProcess(
      writeConfig({
        mcp_servers: {
          everything: { ...SERVERS.everythingProcess, env: { GITHUB_TOKEN: 'gateway-gh' } },
          private: { ...SERVERS.everythingProcess, per_client: true },
        },
        serve: {
          token: 'admin-token',
          clients: {
            alice: {
              token: 'alice-token',
              credentials: { everything: { env: { GITHUB_TOKEN: 'alice-gh' } }, private: { env: { GITHUB_TOKEN: 'alice-private' } } },
            },
          },
        },
      }),
      { env: cleanEnv() },
    );
    const client = new Client({ name: 'alice', version: '1.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer alice-token' } } }),
      );
      for (const [tool, token] of [
        ['everything__get-env', 'alice-gh'],
        ['private__get-env', 'alice-private'],
      ]) {
        const result = (await client.callTool({ name: tool!, arguments: {} })) as CallToolResult;
        expect((result.content[0] as { text: string }).text).toContain(`"GITHUB_TOKEN": "${token}"`);
      }
    } finally {
      await client.close();
    }
    const started = (await servers()).filter((pid) => !before.has(pid));
    expect(started.length, 'alice reached her own servers').toBeGreaterThanOrEqual(2);
    await served.close();
    expect(await waitFor(() => started.every((pid) => !alive(pid)), 10_000), `still running: ${started.filter(alive).join(' ')}`).toBe(true);
  });
});
