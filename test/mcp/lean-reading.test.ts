import { JSONRPCMessageSchema } from '@modelcontextprotocol/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * serve over stdio reads a call once: neither the client's tools/call nor the upstream's answer
 * goes through the SDK's message schema (a second read that copies the whole message); the lean
 * reader (src/core/lean-message.ts) checks their shape by hand. Counted on the schema the SDK's
 * readers share, with server-everything as the upstream.
 */
describe('serve reads a tools/call and its answer without the message schema', () => {
  let served: Awaited<ReturnType<typeof serveStdioInProcess>>;
  beforeAll(async () => {
    served = await serveStdioInProcess(writeConfig({ mcp_servers: { everything: SERVERS.everything } }));
    await served.client.callTool({ name: 'everything__echo', arguments: { message: 'warm' } });
  });
  afterAll(() => served.close());

  it("neither the client's calls nor the upstream's answers go through the schema", async () => {
    const parse = JSONRPCMessageSchema.parse.bind(JSONRPCMessageSchema);
    // What serve reads: the client's tools/call, and the upstream's answers (ids of mcpkit's own).
    // The test's client (the SDK's StdioServerTransport) reads serve's answers through the schema: not counted.
    const servesOwn = (value: unknown) => {
      const m = value as { method?: unknown; id?: unknown };
      return m.method === 'tools/call' || (typeof m.id === 'string' && m.id.startsWith('mcpkit'));
    };
    let parsed = 0;
    JSONRPCMessageSchema.parse = ((value: unknown, ...rest: unknown[]) => {
      if (servesOwn(value)) parsed++;
      return parse(value as never, ...(rest as []));
    }) as typeof JSONRPCMessageSchema.parse;
    try {
      for (let i = 0; i < 5; i++) {
        const result = await served.client.callTool({ name: 'everything__echo', arguments: { message: `m${i}` } });
        expect(JSON.stringify(result.content)).toContain(`Echo: m${i}`);
      }
    } finally {
      JSONRPCMessageSchema.parse = parse;
    }
    // Before the lean reader: 9 or 10 (each call read from the client, and each answer of the upstream read on the hot path).
    expect(parsed).toBe(0);
  });
});
