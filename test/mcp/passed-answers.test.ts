import { isUtf8 } from 'node:buffer';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { ROOT } from '../helpers/root.js';
import { waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * The HTTP hot path passes an upstream's answer line on as it came, the client's id spliced in,
 * only when every JSON reader reads it as mcpkit did; a hostile line is parsed and serialized
 * again, so the client reads what mcpkit checked and audited. The fixture writes its lines spaced
 * as Python does: a body still spaced was passed on, a compact one was serialized again. Each
 * hostile tool below gets its own bytes back from a proxy that passes lines on without that check.
 */
/** What the fixture adds to every text, to be over the 1 KiB below which answers are serialized again. */
const PAD = ` ${'.'.repeat(1024)}`;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

describe('serve --http passes an answer on as its upstream wrote it only when every reader reads it alike', () => {
  let served: InProcessServe;
  let url: URL;
  let session: string;
  let audit: string;
  let heard: string;
  let nextId = 100;
  const post = (body: object) =>
    fetch(url, { method: 'POST', headers: { ...HEADERS, ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(body) });
  /** One tools/call on the hot path: the body's bytes, as the client got them. */
  const call = async (name: string) => {
    const id = nextId++;
    const response = await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: `crafted__${name}`, arguments: {} } });
    expect(response.headers.get('content-type'), 'one JSON answer: the hot path').toBe('application/json');
    const bytes = Buffer.from(await response.arrayBuffer());
    return { id, bytes, body: bytes.toString('utf8') };
  };
  /** A body as JSON.stringify writes what it holds: serialized again, not passed on. */
  const serializedAgain = (body: string) => expect(body).toBe(JSON.stringify(JSON.parse(body)));
  /** The audit log's line of the call to `name`, once it is written. */
  const auditLine = async (name: string) => {
    const find = () =>
      readFileSync(audit, 'utf8')
        .split('\n')
        .find((l) => l.includes(`"crafted__${name}"`));
    expect(await waitFor(() => find() !== undefined, 10_000)).toBe(true);
    return JSON.parse(find()!) as Record<string, unknown>;
  };

  beforeAll(async () => {
    const dir = tempDir();
    audit = join(dir, 'audit.jsonl');
    heard = join(dir, 'heard.txt');
    const crafted = { command: process.execPath, args: [join(ROOT, 'test/fixtures/crafted-answers-server.mjs'), heard] };
    served = await serveHttpInProcess(writeConfig({ mcp_servers: { crafted } }), { auditLog: audit });
    url = new URL('/mcp', served.url);
    const opened = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
    // The first listing connects the server; the calls below take the hot path.
    expect(await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).text()).toContain('crafted__spaced');
  });
  afterAll(() => served?.close());

  it('passes a canonical line on as it came, the id swapped, and audits the bytes of its result as sent', async () => {
    const { id, body } = await call('spaced');
    expect(body).toBe(`{"jsonrpc": "2.0", "id": ${id}, "result": {"content": [{"type": "text", "text": "spaced${PAD}"}], "isError": false}}`);
    const result = `{"content": [{"type": "text", "text": "spaced${PAD}"}], "isError": false}`;
    expect(await auditLine('spaced')).toMatchObject({ outcome: 'ok', bytes_out: Buffer.byteLength(result) });
  });

  it('swaps the envelope id, not the same id inside the result', async () => {
    const { id, body } = await call('our_id_inside');
    const answer = JSON.parse(body) as { id: number; result: { structuredContent: { ref: string } } };
    expect(answer.id).toBe(id);
    expect(answer.result.structuredContent.ref).toMatch(/^mcpkit-\d+$/);
    expect(body).toMatch(/^\{"result": /); // passed on as it came
  });

  it('serializes a result with a key twice: the client reads the isError mcpkit read', async () => {
    const { id, body } = await call('dup_key');
    serializedAgain(body);
    expect(JSON.parse(body)).toEqual({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `dup${PAD}` }], isError: true } });
    expect(await auditLine('dup_key')).toMatchObject({ outcome: 'tool_error', bytes_out: Buffer.byteLength(JSON.stringify(JSON.parse(body).result)) });
  });

  it('serializes an answer with two ids: the client sees only its own', async () => {
    const { id, body } = await call('dup_id');
    serializedAgain(body);
    expect(body).not.toContain('decoy');
    expect(JSON.parse(body)).toMatchObject({ id });
  });

  it('serializes a number JSON.parse rounded: the client reads the digits mcpkit read', async () => {
    const { body } = await call('big_number');
    serializedAgain(body);
    expect(body).not.toContain('12345678901234567890');
    expect(body).toContain('"n":12345678901234567000');
  });

  it('serializes a result with a __proto__ key', async () => {
    const { body } = await call('proto');
    serializedAgain(body);
  });

  it('serializes a line that is not UTF-8: the client gets valid UTF-8, what mcpkit decoded', async () => {
    const { bytes, body } = await call('invalid_utf8');
    expect(isUtf8(bytes)).toBe(true);
    serializedAgain(body);
    expect(JSON.parse(body).result.content[0].text).toBe(`b\ufffd\ufffdad${PAD}`);
  });

  it('never sends a line with a second JSON value after the first: the next answer is the one', async () => {
    const { id, body } = await call('two_values');
    expect(body).toBe(`{"jsonrpc": "2.0", "id": ${id}, "result": {"content": [{"type": "text", "text": "after${PAD}"}]}}`);
  });

  it('answers a result no encoder can write (nested 20,000 deep) with why, and still audits the call', async () => {
    const { id, body } = await call('deep');
    const answer = JSON.parse(body) as { id: number; result: { isError: boolean; content: { text: string }[] } };
    expect(answer.id).toBe(id);
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0]!.text).toContain("The server's answer could not be passed on");
    expect(await auditLine('deep')).toMatchObject({ outcome: 'tool_error' });
  });

  it('cancels a call whose client went away (no AbortController of its own): the upstream is told, the audit line says so', async () => {
    const gone = new AbortController();
    const pending = fetch(url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': session },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'crafted__never', arguments: {} } }),
      signal: gone.signal,
    }).catch((error: Error) => error);
    const lines = () => (existsSync(heard) ? readFileSync(heard, 'utf8') : '');
    expect(await waitFor(() => /^call /m.test(lines()), 10_000)).toBe(true);
    gone.abort();
    expect(await pending).toBeInstanceOf(Error);
    const called = /^call (\S+)$/m.exec(lines())![1]!;
    expect(await waitFor(() => lines().includes(`cancelled ${called}`), 10_000), 'the upstream was told').toBe(true);
    expect(await auditLine('never')).toMatchObject({ outcome: 'protocol_error', error_code: 'CANCELLED' });
  });
});
