import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTracked } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { EVERYTHING_BUNDLE, freePort, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/** server-everything in one of its network modes (sse or streamableHttp) on a local port. */
async function startRemote(mode: 'sse' | 'streamableHttp'): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawnTracked(SERVERS.everythingProcess.command, [EVERYTHING_BUNDLE, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const up = await waitFor(() => err.includes(String(port)), 15_000);
  if (!up) throw new Error(`server-everything ${mode} did not start: ${err}`);
  return { child, port };
}

describe('remote upstream servers over streamable HTTP and SSE', () => {
  let http: Awaited<ReturnType<typeof startRemote>>;
  let sse: Awaited<ReturnType<typeof startRemote>>;
  beforeAll(async () => {
    [http, sse] = await Promise.all([startRemote('streamableHttp'), startRemote('sse')]);
  });
  afterAll(() => {
    http?.child.kill();
    sse?.child.kill();
  });

  it('proxies a streamable HTTP server and an SSE-only server (auto falls back to SSE)', async () => {
    const config = writeConfig({
      mcp_servers: {
        viahttp: { url: `http://127.0.0.1:${http.port}/mcp`, transport: 'http', tools: { echo: {} } },
        viasse: { url: `http://127.0.0.1:${sse.port}/sse`, tools: { echo: {} } },
      },
    });
    const { client } = await serveStdioInProcess({ argv: ['--config', config, '--exposure', 'direct'], name: 'remote' });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['viahttp__echo', 'viasse__echo']));
      for (const name of ['viahttp__echo', 'viasse__echo']) {
        const r = (await client.callTool({ name, arguments: { message: name } })) as CallToolResult;
        expect(JSON.stringify(r.content)).toContain(`Echo: ${name}`);
      }
    } finally {
      await client.close();
    }
  });
});
