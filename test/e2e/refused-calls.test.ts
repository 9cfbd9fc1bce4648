import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/audit/audit-log.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { fileTools, SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * A call the gateway refuses before it runs (a client's rate or max_concurrent, a server's
 * upstream_limits, a tool its pins withhold, a tool the client's rules do not allow) keeps the
 * server and the tool it was for, in /metrics and in the audit log, under its own outcome:
 * `refused`. Real SDK clients over HTTP against serve --http in this process.
 */

const ADMIN = 'admin-token';
let serve: InProcessServe;
let audit = '';
const opened: Client[] = [];

beforeAll(async () => {
  const config = writeConfig({
    mcp_servers: {
      everything: SERVERS.everything,
      // Added by an agent: never trusted on first use, so every tool of it is withheld until a person approves it.
      notes: { ...fileTools('notes.json'), added_by: 'agent' },
    },
    serve: {
      token: ADMIN,
      audit_log: 'audit.jsonl',
      exposure: 'direct',
      upstream_limits: { everything: { max_concurrent: 1 } },
      clients: {
        slow: { token: 'slow-token', rate: '1/min' },
        narrow: { token: 'narrow-token', tools: ['- everything__get-sum', '+ *'] },
      },
    },
  });
  const folder = dirname(config);
  writeFileSync(join(folder, 'notes.json'), JSON.stringify([{ name: 'send_note', description: 'Send a note.', inputSchema: { type: 'object' } }]));
  // The fixture's tools file is named relative to where the server runs: the config's folder.
  const text = readFileSync(config, 'utf8').replace('"notes.json"', JSON.stringify(join(folder, 'notes.json')));
  writeFileSync(config, text);
  audit = join(folder, 'audit.jsonl');
  serve = await serveHttpInProcess(config);
}, 60_000);
afterAll(async () => {
  await Promise.allSettled(opened.map((c) => c.close()));
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: `refused-${token}`, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  opened.push(client);
  return client;
}
const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }, { timeout: 30_000 }) as Promise<CallToolResult>;
const codeOf = (r: CallToolResult) => (r.structuredContent as { error?: { code: string } } | undefined)?.error?.code;

/** The count of mcpkit_tool_calls_total with exactly these labels. */
async function counted(labels: { server: string; tool: string; client: string; outcome: string }): Promise<number> {
  const text = await (await fetch(`${serve.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
  const family = parsePrometheusTextFormat(text).find((f) => f.name === 'mcpkit_tool_calls_total');
  const want = JSON.stringify({ view: '(default)', ...labels });
  return Number(family?.metrics.find((m) => JSON.stringify(m.labels) === want)?.value ?? 0);
}

/** The audit lines of one client and tool, once they are written (in batches). */
async function linesOf(client: string, name: string, at_least: number): Promise<AuditEntry[]> {
  const read = () =>
    readFileSync(audit, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry)
      .filter((e) => e.client === client && e.name === name);
  await waitFor(() => {
    try {
      return read().length >= at_least;
    } catch {
      return false;
    }
  }, 10_000);
  return read();
}

describe('refused calls in /metrics and the audit log', () => {
  it("a client's rate: the refused call names its server and tool, outcome refused", async () => {
    const slow = await connect('slow-token');
    expect((await call(slow, 'everything__echo', { message: 'first' })).isError).toBeFalsy();
    expect(codeOf(await call(slow, 'everything__echo', { message: 'second' }))).toBe('RATE_LIMITED');
    expect(await counted({ server: 'everything', tool: 'everything__echo', client: 'slow', outcome: 'ok' })).toBe(1);
    expect(await counted({ server: 'everything', tool: 'everything__echo', client: 'slow', outcome: 'refused' })).toBe(1);
    expect(await counted({ server: '(unknown)', tool: '(unknown)', client: 'slow', outcome: 'tool_error' })).toBe(0);
    const lines = await linesOf('slow', 'everything__echo', 2);
    expect(lines.map((l) => [l.server, l.upstream_name, l.outcome, l.error_code])).toEqual([
      ['everything', 'echo', 'ok', null],
      ['everything', 'echo', 'refused', 'RATE_LIMITED'],
    ]);
  }, 60_000);

  it("a tool the client's rules do not allow: answered as unknown, recorded as refused with its server", async () => {
    const narrow = await connect('narrow-token');
    expect((await call(narrow, 'everything__echo', { message: 'allowed' })).isError).toBeFalsy();
    await expect(call(narrow, 'everything__get-sum', { a: 1, b: 2 })).rejects.toThrow(/Unknown tool/);
    expect(await counted({ server: 'everything', tool: 'everything__get-sum', client: 'narrow', outcome: 'refused' })).toBe(1);
    const [line] = await linesOf('narrow', 'everything__get-sum', 1);
    expect(line).toMatchObject({ server: 'everything', upstream_name: 'get-sum', outcome: 'refused', error_code: -32602 });
    // A name no server has stays unknown, and its label bounded.
    await expect(call(narrow, 'everything__no_such_tool')).rejects.toThrow(/Unknown tool/);
    const [unknown] = await linesOf('narrow', 'everything__no_such_tool', 1);
    expect(unknown).toMatchObject({ server: null, outcome: 'protocol_error' });
    expect(await counted({ server: '(unknown)', tool: '(unknown)', client: 'narrow', outcome: 'protocol_error' })).toBe(1);
  }, 60_000);

  it('a tool its pins withhold: refused, with the server it is of', async () => {
    const admin = await connect(ADMIN);
    expect(codeOf(await call(admin, 'notes__send_note', { text: 'hi' }))).toBe('TOOL_NOT_APPROVED');
    expect(await counted({ server: 'notes', tool: 'notes__send_note', client: '(anonymous)', outcome: 'refused' })).toBe(1);
    const [line] = await linesOf('token:serve', 'notes__send_note', 1);
    expect(line).toMatchObject({ server: 'notes', upstream_name: 'send_note', outcome: 'refused', error_code: 'TOOL_NOT_APPROVED' });
  }, 60_000);

  it("a server's max_concurrent: the call refused for want of a place is refused, not a tool error", async () => {
    const admin = await connect(ADMIN);
    const both = await Promise.all([
      call(admin, 'everything__trigger-long-running-operation', { duration: 1, steps: 1 }),
      call(admin, 'everything__trigger-long-running-operation', { duration: 1, steps: 1 }),
    ]);
    expect(both.map(codeOf).sort()).toEqual(['RATE_LIMITED', undefined]);
    const labels = { server: 'everything', tool: 'everything__trigger-long-running-operation', client: '(anonymous)' };
    expect(await counted({ ...labels, outcome: 'refused' })).toBe(1);
    expect(await counted({ ...labels, outcome: 'tool_error' })).toBe(0);
  }, 60_000);
});
