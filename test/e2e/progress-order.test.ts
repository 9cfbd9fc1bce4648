import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, stopChild } from '../helpers/cli.js';
import { serveHttpChild } from '../helpers/serve.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * A call's notifications reach its client before its result, on every path: here the one the
 * conformance suite caught losing the last progress, mcpkit chained behind mcpkit with stdio
 * between them, and one hop, in both eras, 50 calls each: every progress notification reaches the
 * client's transport, in order, before the result.
 */

let chainedConfig = '';
let chained: Awaited<ReturnType<typeof serveHttpChild>>;
let oneHop: Awaited<ReturnType<typeof serveHttpChild>>;
const clients: Client[] = [];

beforeAll(async () => {
  const inner = writeConfig({ mcp_servers: { everything: SERVERS.everything } });
  chainedConfig = writeConfig({ mcp_servers: { inner: { command: process.execPath, args: [BIN, 'serve', '--config', inner, '--exposure', 'direct'] } } });
  chained = await serveHttpChild(chainedConfig);
  oneHop = await serveHttpChild(inner);
}, 60_000);
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled([chained && stopChild(chained.child), oneHop && stopChild(oneHop.child)]);
});

// Each path on its own client (the servers are shared, as a gateway's are): a few at once.
describe.concurrent('order kept: progress before the result', () => {
  it.each([
    ['legacy', 'one hop'],
    ['modern', 'one hop'],
    ['legacy', 'chained'],
    ['modern', 'chained'],
    ['legacy', 'chained, serve over stdio'],
    ['modern', 'chained, serve over stdio'],
  ] as const)(
    '%s, %s: 50 calls lose no progress',
    async (era, path) => {
      const served = path === 'chained' ? chained : oneHop;
      const tool = path === 'one hop' ? 'everything__trigger-long-running-operation' : 'inner__everything__trigger-long-running-operation';
      const client = new Client({ name: `progress-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
      const transport = path.endsWith('stdio')
        ? new StdioClientTransport({
            command: process.execPath,
            args: [BIN, 'serve', '--config', chainedConfig, '--exposure', 'direct'],
            env: cleanEnv() as Record<string, string>,
            stderr: 'ignore',
          })
        : new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`));
      await client.connect(transport);
      clients.push(client);
      // What arrives, in the order it arrives, before the SDK client dispatches it (the SDK itself
      // runs a notification's handler a microtask after a response's, so its onprogress can miss a
      // last progress that came in order).
      let wire: string[] = [];
      // Either transport: the one property read and replaced, typed as what both call it with.
      const tapped = transport as unknown as { onmessage: (message: unknown, extra?: unknown) => void };
      const sdk = tapped.onmessage;
      tapped.onmessage = (message, extra) => {
        const m = message as { method?: string; id?: unknown; params?: { progress?: number } };
        if (m.method === 'notifications/progress') wire.push(`p${m.params?.progress}`);
        else if (m.method === undefined && m.id !== undefined) wire.push('result');
        sdk(message, extra);
      };
      const lost: string[] = [];
      for (let n = 0; n < 50; n++) {
        wire = [];
        await client.callTool({ name: tool, arguments: { duration: 0.03, steps: 3 } }, { onprogress: () => undefined, timeout: 20_000 });
        if (wire.join(' ') !== 'p1 p2 p3 result') lost.push(`call ${n}: ${wire.join(' ')}`);
      }
      expect(lost).toEqual([]);
    },
    120_000,
  );
});
