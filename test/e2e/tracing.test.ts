import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, tempDir } from '../helpers/cli.js';
import { fileTools, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * Traces: serve sends OpenTelemetry spans over OTLP/HTTP to an in-test receiver; the
 * client's traceparent is the parent of the server span, and the upstream gets a traceparent of the
 * same trace, naming mcpkit's client span.
 */

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string } }[];
}

let receiver: Server;
let endpoint = '';
const spans: OtlpSpan[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const parsed = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const r of parsed.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe('traces', () => {
  it("parents the server span on the client's traceparent, and passes the trace on to the upstream", async () => {
    const tools = join(tempDir(), 'tools.json');
    writeFileSync(tools, JSON.stringify([{ name: 'send_note', description: 'Send a note.', inputSchema: { type: 'object' } }]));
    const config = writeConfig({ mcp_servers: { notes: { ...fileTools(tools) } } });
    const client = new Client({ name: 'tracing-e2e', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', '--config', config, '--exposure', 'direct'],
        env: cleanEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }) as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';
    let text = '';
    try {
      for (let i = 0; i < 2; i++) {
        // The first call takes the SDK server's path, the second the hot path: both are traced alike (mcp/pipeline/call-chain.ts).
        const result = (await client.callTool({
          name: 'notes__send_note',
          arguments: {},
          _meta: { traceparent: `00-${traceId}-${clientSpan}-01` },
        })) as CallToolResult;
        text = (result.content[0] as { text: string }).text;
      }
    } finally {
      await client.close();
    }
    const sent = /"traceparent":"00-([0-9a-f]{32})-([0-9a-f]{16})-01"/.exec(text);
    expect(sent?.[1]).toBe(traceId);
    expect(sent?.[2]).not.toBe(clientSpan);
    expect(await waitFor(() => spans.filter((s) => s.traceId === traceId).length >= 4, 10_000)).toBe(true);
    const ofTrace = spans.filter((s) => s.traceId === traceId);
    const servers = ofTrace.filter((s) => s.kind === 2);
    const clients = ofTrace.filter((s) => s.kind === 3);
    expect(servers).toHaveLength(2);
    expect(clients).toHaveLength(2);
    for (const s of servers) {
      expect(s.name).toBe('tools/call notes__send_note');
      expect(s.parentSpanId).toBe(clientSpan);
      expect(s.attributes).toContainEqual({ key: 'mcp.method.name', value: { stringValue: 'tools/call' } });
    }
    for (const c of clients) {
      expect(servers.map((s) => s.spanId)).toContain(c.parentSpanId);
      expect(c.attributes).toContainEqual({ key: 'server.name', value: { stringValue: 'notes' } });
    }
    // The upstream's traceparent names mcpkit's client span of the last call.
    expect(clients.map((c) => c.spanId)).toContain(sent?.[2]);
  }, 60_000);
});
