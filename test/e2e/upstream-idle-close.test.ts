import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, spawnTracked, stopChild, type PipedChild } from '../helpers/cli.js';
import { serveHttpChild } from '../helpers/serve.js';
import { waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * An HTTP server that ends a pooled connection without answering the request sent on it: as its
 * keepAliveTimeout does, unread (the keep-alive race; a full run under load saw a call fail with
 * "fetch failed"), or after it read and ran the request (a crash, a deploy's shutdown). mcpkit
 * cannot tell the two apart, so it sends a listing again, once, and never a tools/call.
 * The servers are test/fixtures/many-servers.mjs with --faults: POST /arm makes the next request
 * go wrong. One serve for the file (a start is ~0.85 CPU-s): before each test arms the fault, a
 * call through it is answered, so that the one request the test makes goes on a connection serve's
 * pool already used (the server drops an unread request only on such a connection, and each test
 * asserts the drop: a request on a new one fails the test, never passes it).
 */

type Stats = { handled: number; listed: number; dropped: number };

let servers: PipedChild;
let base = '';
let served: Awaited<ReturnType<typeof serveHttpChild>> | undefined;
let client: Client;

beforeAll(async () => {
  servers = spawnTracked(process.execPath, [join(ROOT, 'test/fixtures/many-servers.mjs'), '--faults'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  servers.stdout.on('data', (d) => (out += d));
  expect(await waitFor(() => out.includes('\n'), 10_000)).toBe(true);
  base = out.trim();
  const config = writeConfig({ mcp_servers: { s3: { url: `${base}/s3/mcp`, protocol: '2025-11-25', timeout_ms: 20_000 } }, serve: { exposure: 'direct' } });
  served = await serveHttpChild(config);
  client = new Client({ name: 'idle-close', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
  expect((await client.listTools()).tools.some((t) => t.name === 's3__tool_5')).toBe(true);
}, 40_000);
afterAll(async () => {
  await client?.close().catch(() => undefined);
  if (served) await stopChild(served.child);
  if (servers) await stopChild(servers);
});

const stats = async (): Promise<Stats> => (await (await fetch(`${base}/stats`)).json()) as Stats;
const arm = async (mode: 'unread' | 'read', how: 'destroy' | 'reset' = 'destroy') => {
  expect((await fetch(`${base}/arm?mode=${mode}&how=${how}`, { method: 'POST' })).status).toBe(204);
};

/**
 * serve connected to s3 with a connection in its pool that carried a request (a call answered,
 * whatever the test before left), before anything is armed; and the counts so far.
 */
async function connected(): Promise<Stats> {
  const warm = await client.callTool({ name: 's3__tool_5', arguments: { message: 'warm' } });
  expect(warm.isError, JSON.stringify(warm.content)).toBeFalsy();
  return stats();
}

/** What a call that failed says: a result marked as an error, or a JSON-RPC error. */
async function failure(call: Promise<{ isError?: boolean; content?: unknown }>): Promise<string> {
  const outcome = await call.then(
    (result) => ({ result }),
    (error: unknown) => ({ error: error as Error }),
  );
  if ('error' in outcome) return outcome.error.message;
  expect(outcome.result, 'the call was answered: it was sent again').toMatchObject({ isError: true });
  return JSON.stringify(outcome.result.content);
}

describe('an HTTP server that ends a reused connection without answering', () => {
  it.each(['destroy', 'reset'] as const)(
    'a listing it never read (%s) is sent again, once, and answered',
    async (how) => {
      const before = await connected();
      await arm('unread', how);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toContain('s3__greeting_s3');
      const after = await stats();
      // The server did end the listing's connection unread (else this test proves nothing) ...
      expect(after.dropped - before.dropped).toBe(1);
      // ... and answered the one sent again.
      expect(after.listed - before.listed).toBe(1);
    },
    60_000,
  );

  it.each(['destroy', 'reset'] as const)(
    'a tools/call it never read (%s) is not sent again: the call fails naming the server',
    async (how) => {
      const before = await connected();
      await arm('unread', how);
      const said = await failure(client.callTool({ name: 's3__tool_5', arguments: { message: 'once' } }));
      const after = await stats();
      expect(after.dropped - before.dropped).toBe(1);
      expect(said).toMatch(/Server \\*"s3\\*"/);
      expect(said).toMatch(/UNAVAILABLE|UPSTREAM_ERROR/);
      // Not sent again: the server never ran it (a second send would have).
      expect(after.handled - before.handled).toBe(0);
    },
    60_000,
  );

  it.each(['destroy', 'reset'] as const)(
    'a tools/call the server read and ran, then ended its connection (%s), is not run twice',
    async (how) => {
      const before = await connected();
      await arm('read', how);
      const said = await failure(client.callTool({ name: 's3__tool_5', arguments: { message: 'once' } }));
      const after = await stats();
      expect(after.dropped - before.dropped).toBe(1);
      expect(said).toMatch(/Server \\*"s3\\*"/);
      expect(after.handled - before.handled).toBe(1);
    },
    60_000,
  );
});
