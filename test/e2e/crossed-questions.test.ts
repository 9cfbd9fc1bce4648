import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessServe, serveHttpAsCli } from '../helpers/in-process.js';
import { FIXTURES, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * A question a 2025-11-25 upstream asks during a call reaches the client that made the call, or
 * nobody: two 2026-07-28 clients on different views share the upstream's connection, and the
 * upstream's elicitation request names no call. Against the relay fixture, over serve --http, in
 * this process (helpers/in-process.ts): what is asked is who hears what, not serve's process.
 */

let served: InProcessServe;
const clients: Client[] = [];

beforeAll(async () => {
  const config = writeConfig({
    mcp_servers: { relay: { ...FIXTURES.relay(), protocol: '2025-11-25' } },
    tool_views: { a: { servers: ['relay'] }, b: { servers: ['relay'] } },
  });
  served = await serveHttpAsCli(config);
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await served?.close();
});

/** A 2026-07-28 client of one view that answers elicitation with its own name, once `ready` says so; what it was asked is kept. */
async function modernClient(view: string, name: string, ready: Promise<void> = Promise.resolve()) {
  const asked: string[] = [];
  const client = new Client(
    { name: `client-${name}`, version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String(request.params.message));
    await ready;
    return { action: 'accept', content: { name } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/view/${view}/mcp`)));
  clients.push(client);
  const ask = (question: string) => client.callTool({ name: 'ask_user', arguments: { question } }, { timeout: 20_000 });
  return { client, asked, ask };
}

const text = (result: unknown) => JSON.stringify(result);

describe('questions go only to their caller', () => {
  it("while A's call waits for A's answer, B's question is not put to A (nor is A's answer given to B)", async () => {
    let release!: () => void;
    const a = await modernClient('a', 'Alice', new Promise<void>((r) => (release = r)));
    const b = await modernClient('b', 'Bob');
    const aCall = a.ask('question for A');
    expect(await waitFor(() => a.asked.length === 1, 10_000)).toBe(true);

    const bOutcome = await b.ask('question for B').then(text, (error: Error) => error.message);
    release();
    const aResult = text(await aCall);

    expect(a.asked).toEqual(['question for A']);
    expect(b.asked.every((q) => q === 'question for B')).toBe(true);
    expect(aResult).toContain('Alice');
    expect(aResult).not.toContain('Bob');
    // B's question could not be tied to B's call while A's was in flight: asked of nobody, and said so.
    expect(bOutcome).not.toContain('Alice');
    if (b.asked.length === 0) expect(bOutcome).toMatch(/cannot tell which of the 2 calls/);
  }, 30_000);

  it('a call alone on the connection is asked, and gets its own answer', async () => {
    const b = await modernClient('b', 'Bob');
    const result = text(await b.ask('question for B'));
    expect(b.asked).toEqual(['question for B']);
    expect(result).toContain('elicited: accept');
    expect(result).toContain('Bob');
  }, 30_000);
});
