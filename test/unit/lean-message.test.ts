import { deserializeMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { LeanReadBuffer, leanMessage, messageOfLine } from '../../src/core/lean-message.js';

/**
 * The lean reader agrees with the SDK's message schema on every line: what the schema refuses is
 * refused, what it accepts comes out equal; and the hot path's shapes are kept as parsed (no copy).
 */
const TASK = 'io.modelcontextprotocol/related-task';
const cases: { name: string; message: unknown; lean: boolean }[] = [
  { name: 'a tools/call', message: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' } } }, lean: true },
  {
    name: 'a call with a progress token',
    message: { jsonrpc: '2.0', id: 's', method: 'tools/call', params: { name: 'e', _meta: { progressToken: 'p' } } },
    lean: true,
  },
  { name: 'a request without params', message: { jsonrpc: '2.0', id: 1, method: 'ping' }, lean: true },
  { name: 'a notification', message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } }, lean: true },
  { name: 'a result', message: { jsonrpc: '2.0', id: 'mcpkit-1', result: { content: [{ type: 'text', text: 'x' }] } }, lean: true },
  {
    name: 'a result with _meta (the schema rewrites serverInfo)',
    message: { jsonrpc: '2.0', id: 1, result: { _meta: { 'io.modelcontextprotocol/serverInfo': 3 } } },
    lean: false,
  },
  { name: 'an error', message: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no' } }, lean: false },
  { name: 'a fractional id', message: { jsonrpc: '2.0', id: 1.5, method: 'ping' }, lean: false },
  { name: 'an id past the safe integers', message: { jsonrpc: '2.0', id: 2 ** 53, method: 'ping' }, lean: false },
  { name: 'an id of 1e300', message: { jsonrpc: '2.0', id: 1e300, result: {} }, lean: false },
  { name: 'a progress token past the safe integers', message: { jsonrpc: '2.0', method: 'n', params: { _meta: { progressToken: 2 ** 53 } } }, lean: false },
  { name: 'a negative id', message: { jsonrpc: '2.0', id: -5, method: 'ping' }, lean: true },
  { name: 'an object id', message: { jsonrpc: '2.0', id: {}, method: 'ping' }, lean: false },
  {
    name: 'a fractional progress token',
    message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'e', _meta: { progressToken: 0.5 } } },
    lean: false,
  },
  {
    name: 'a null progress token',
    message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'e', _meta: { progressToken: null } } },
    lean: false,
  },
  {
    name: 'a related task in _meta (the schema strips its extra keys)',
    message: { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { [TASK]: { taskId: 't', more: 1 } } } },
    lean: false,
  },
  { name: 'params that are an array', message: { jsonrpc: '2.0', id: 1, method: 'x', params: [1] }, lean: false },
  { name: '_meta that is a string', message: { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: 'm' } }, lean: false },
  { name: 'an extra top-level key (the schema is strict)', message: { jsonrpc: '2.0', id: 1, method: 'x', extra: true }, lean: false },
  { name: 'a result and a method', message: { jsonrpc: '2.0', id: 1, method: 'x', result: {} }, lean: false },
  { name: 'the wrong jsonrpc', message: { jsonrpc: '1.0', id: 1, method: 'x' }, lean: false },
  { name: 'a result that is an array', message: { jsonrpc: '2.0', id: 1, result: [] }, lean: false },
  { name: 'a response without an id', message: { jsonrpc: '2.0', result: {} }, lean: false },
  { name: 'not an object', message: [1, 2], lean: false },
];

/** What a reader gives for a line: the message, or the name of the error it throws. */
const outcome = (read: () => unknown) => {
  try {
    return { message: read() };
  } catch (error) {
    return { error: (error as Error).name };
  }
};

describe('leanMessage and messageOfLine', () => {
  it.each(cases)('$name: as the schema decides', ({ message, lean }) => {
    const line = JSON.stringify(message);
    expect(outcome(() => messageOfLine(line))).toEqual(outcome(() => deserializeMessage(line)));
    expect(leanMessage(message) === message).toBe(lean);
  });

  it('a line that is not JSON throws a SyntaxError, as the SDK reader does', () => {
    expect(() => messageOfLine('{"jsonrpc": ')).toThrow(SyntaxError);
  });
});

describe('LeanReadBuffer', () => {
  it('reads whole lines across chunks, skips lines that are not JSON, and keeps the rest for later', () => {
    const buffer = new LeanReadBuffer();
    buffer.append(Buffer.from('not json\n{"jsonrpc":"2.0","id":1,"met'));
    expect(buffer.readMessage()).toBeNull();
    buffer.append(Buffer.from('hod":"ping"}\r\n{"jsonrpc":"2.0","method":"n"}\n{"json'));
    expect(buffer.readMessage()).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(buffer.readMessage()).toEqual({ jsonrpc: '2.0', method: 'n' });
    expect(buffer.readMessage()).toBeNull();
    buffer.clear();
    buffer.append(Buffer.from('{"jsonrpc":"2.0","method":"m"}\n'));
    expect(buffer.readMessage()).toEqual({ jsonrpc: '2.0', method: 'm' });
  });

  it('a message the schema refuses throws (the transport reports it), and the lines after it are still read', () => {
    const buffer = new LeanReadBuffer();
    buffer.append(Buffer.from('{"jsonrpc":"2.0","id":1,"result":[]}\n{"jsonrpc":"2.0","method":"after"}\n'));
    expect(() => buffer.readMessage()).toThrow();
    expect(buffer.readMessage()).toEqual({ jsonrpc: '2.0', method: 'after' });
  });

  it('holds no more unread than its limit: past it, it throws and drops what it held, as the SDK buffer does', () => {
    const buffer = new LeanReadBuffer(16);
    buffer.append(Buffer.from('{"jsonrpc":'));
    expect(() => buffer.append(Buffer.from('"2.0","method":"m"}\n'))).toThrow(/exceeded maximum size of 16 bytes/);
    expect(buffer.readMessage()).toBeNull();
  });
});
