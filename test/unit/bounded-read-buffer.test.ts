import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { BoundedReadBuffer, idFromEnds, type DroppedMessage } from '../../src/proxy/upstream/bounded-read-buffer.js';

const line = (message: object) => `${JSON.stringify(message)}\n`;
const result = (id: number | string, text: string) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
/** The SDK server's order: result first, id last. */
const sdkOrder = (id: number, text: string) => ({ result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id });

function feed(max: number, text: string, chunkSize: number) {
  const dropped: DroppedMessage[] = [];
  const buffer = new BoundedReadBuffer(max, (d) => {
    dropped.push(d);
    return d.id === undefined ? undefined : ({ jsonrpc: '2.0', id: d.id, error: { code: -32603, message: `dropped ${d.bytes}` } } as JSONRPCMessage);
  });
  const out: JSONRPCMessage[] = [];
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunkSize) {
    buffer.append(bytes.subarray(i, i + chunkSize));
    for (let m = buffer.readMessage(); m !== null; m = buffer.readMessage()) out.push(m);
  }
  return { out, dropped };
}

describe('BoundedReadBuffer', () => {
  const big = 'x'.repeat(5000);
  it.each([1, 7, 64, 100_000])('passes messages under the limit whole, in chunks of %i bytes', (chunk) => {
    const text = line(result(1, 'a')) + line(result(2, big)) + line({ jsonrpc: '2.0', method: 'notifications/x' });
    const { out, dropped } = feed(6000, text, chunk);
    expect(out).toEqual([result(1, 'a'), result(2, big), { jsonrpc: '2.0', method: 'notifications/x' }]);
    expect(dropped).toEqual([]);
  });

  it.each([1, 13, 4096, 100_000])('drops a message over the limit, answers its request, and goes on (chunks of %i bytes)', (chunk) => {
    const text = line(result(1, 'before')) + line(sdkOrder(2, big)) + line(result('s-3', big)) + line(result(4, 'after'));
    const { out, dropped } = feed(1000, text, chunk);
    expect(dropped.map((d) => d.id)).toEqual([2, 's-3']);
    expect(dropped[0]!.bytes).toBe(Buffer.byteLength(JSON.stringify(sdkOrder(2, big))));
    expect(out.map((m) => ('error' in m ? `error ${m.id}` : 'id' in m ? `ok ${m.id}` : 'note'))).toEqual(['ok 1', 'error 2', 'error s-3', 'ok 4']);
  });

  it('drops a message whose id cannot be found without answering anything', () => {
    const { out, dropped } = feed(100, line({ jsonrpc: '2.0', method: 'notifications/message', params: { data: big } }) + line(result(5, 'next')), 50);
    expect(dropped).toEqual([{ id: undefined, bytes: expect.any(Number) }]);
    expect(out).toEqual([result(5, 'next')]);
  });
});

describe('BoundedReadBuffer: answers that are JSON but not JSON-RPC', () => {
  const malformedAnswers = (text: string) => {
    const buffer = new BoundedReadBuffer(
      1_000_000,
      () => undefined,
      ({ id }) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: 'malformed' } }) as JSONRPCMessage,
    );
    buffer.append(Buffer.from(text));
    const out: unknown[] = [];
    for (;;) {
      try {
        const m = buffer.readMessage();
        if (m === null) break;
        out.push(m);
      } catch (error) {
        out.push(`thrown: ${(error as Error).name}`);
      }
    }
    return out;
  };

  it.each<[string, object, unknown]>([
    ['a result that is a string', { jsonrpc: '2.0', id: 3, result: 'notanobject' }, { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'malformed' } }],
    ['a result that is a list', { jsonrpc: '2.0', id: 'a', result: [1] }, { jsonrpc: '2.0', id: 'a', error: { code: -32603, message: 'malformed' } }],
    ['a request with a bad shape is not an answer: the SDK hears of it as before', { jsonrpc: '2.0', id: 4, method: 5 }, expect.stringMatching(/^thrown/)],
  ])('%s', (_what, message, expected) => {
    expect(malformedAnswers(line(message) + line(result(9, 'next')))).toEqual([expected, result(9, 'next')]);
  });
});

describe('idFromEnds', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":7,"result":{', '', 7],
    ['{"id":"abc","result":', '', 'abc'],
    ['{"result":{"content":[{"id":99', '"jsonrpc":"2.0","id":12}', 12],
    ['{"result":{"id":1', '"text":"x"}]}}', undefined],
    ['{"jsonrpc":"2.0","method":"x"', '}}', undefined],
  ])('%s … %s', (head, tail, id) => {
    expect(idFromEnds(head, tail)).toBe(id);
  });
});
