import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { serveHttpInProcess, serveStdioInProcess, type InProcessServe } from '../helpers/in-process.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * A call's notifications reach its client before its result, on every path: here the one the
 * conformance suite caught losing the last progress, mcpkit chained behind mcpkit with stdio
 * between them, and one hop, in both eras, 20 calls each: every progress notification reaches the
 * client's transport, in order, before the result.
 *
 * The front serve runs in this process (the same runtime, hot path and stdio framing as the
 * process; what is tested is the order an upstream's progress is relayed in, not a process start);
 * the inner mcpkit of the chain is a process, the upstream it serves. 20 calls, not 50: with the
 * progress handed to the SDK client as before commit 75e9c2c (the bug this guards), a legacy path
 * lost progress on its first two calls and a modern one on 47 to 50 of 50, so 20 catch it on every path.
 */

let chainedConfig = '';
let served: InProcessServe;
const clients: Client[] = [];

beforeAll(async () => {
  const inner = writeConfig({ mcp_servers: { everything: SERVERS.everything } });
  const chain = { inner: { command: process.execPath, args: [BIN, 'serve', '--config', inner, '--exposure', 'direct'] } };
  chainedConfig = writeConfig({ mcp_servers: chain });
  // One HTTP serve for both paths: `everything` is one hop, `inner` the chain (a gateway's servers are shared).
  served = await serveHttpInProcess(writeConfig({ mcp_servers: { everything: SERVERS.everything, ...chain } }));
}, 60_000);
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await served?.close();
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
    '%s, %s: 20 calls lose no progress',
    async (era, path) => {
      const tool = path === 'one hop' ? 'everything__trigger-long-running-operation' : 'inner__everything__trigger-long-running-operation';
      const client = new Client({ name: `progress-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
      clients.push(client);
      if (path.endsWith('stdio')) await serveStdioInProcess({ config: chainedConfig, client });
      else await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
      // What arrives, in the order it arrives, before the SDK client dispatches it (the SDK itself
      // runs a notification's handler a microtask after a response's, so its onprogress can miss a
      // last progress that came in order).
      let wire: string[] = [];
      // Either transport: the one property read and replaced, typed as what both call it with.
      const tapped = client.transport as unknown as { onmessage: (message: unknown, extra?: unknown) => void };
      const sdk = tapped.onmessage;
      tapped.onmessage = (message, extra) => {
        const m = message as { method?: string; id?: unknown; params?: { progress?: number } };
        if (m.method === 'notifications/progress') wire.push(`p${m.params?.progress}`);
        else if (m.method === undefined && m.id !== undefined) wire.push('result');
        sdk(message, extra);
      };
      const lost: string[] = [];
      for (let n = 0; n < 20; n++) {
        wire = [];
        await client.callTool({ name: tool, arguments: { duration: 0.03, steps: 3 } }, { onprogress: () => undefined, timeout: 20_000 });
        if (wire.join(' ') !== 'p1 p2 p3 result') lost.push(`call ${n}: ${wire.join(' ')}`);
      }
      expect(lost).toEqual([]);
    },
    120_000,
  );
});
