import { describe, expect, it } from 'vitest';
import { closedBeforeAnswer, resendable } from '../../../src/proxy/upstream/closed-before-answer.js';

/** undici's fetch failure: TypeError('fetch failed') with the connection's error as its cause. */
const fetchFailed = (cause: object) => new TypeError('fetch failed', { cause });
const otherSideClosed = (bytesRead: number) =>
  fetchFailed(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET', socket: { bytesRead, bytesWritten: 400 } }));

describe('closedBeforeAnswer: is a failed fetch the server closing an idle connection as the request was sent?', () => {
  it.each([
    ['the other side closed a reused connection, no byte of the answer', otherSideClosed(137), false, true],
    ['the other side closed a new connection (nothing read on it ever)', otherSideClosed(0), false, false],
    ['the other side closed after the answer had begun', otherSideClosed(137), true, false],
    [
      'the other side closed, undici said nothing of the socket',
      fetchFailed(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })),
      false,
      false,
    ],
    ['the connection was reset before any answer', fetchFailed(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })), false, true],
    ['the request was written on a connection already gone', fetchFailed(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })), false, true],
    ['a reset after the answer had begun', fetchFailed(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })), true, false],
    [
      'a refused connection (no server there: nothing to send again to)',
      fetchFailed(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
      false,
      false,
    ],
    [
      'the headers timed out (the server has the request)',
      fetchFailed(Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' })),
      false,
      false,
    ],
    ['an abort', new DOMException('This operation was aborted', 'AbortError'), false, false],
    ['a TypeError without a cause', new TypeError('fetch failed'), false, false],
    ['not an error at all', 'fetch failed', false, false],
  ] as const)('%s: %s', (_what, error, responseStarted, expected) => {
    expect(closedBeforeAnswer(error, responseStarted)).toBe(expected);
  });
});

describe('resendable: a body that can be sent a second time as it is', () => {
  it.each([
    ['JSON text (what the SDK sends)', '{"jsonrpc":"2.0"}', true],
    ['no body (a GET)', undefined, true],
    ['bytes', new Uint8Array([1, 2]), true],
    ['a stream, read by the first send', new ReadableStream(), false],
    ['a Blob', new Blob(['x']), false],
  ] as const)('%s', (_what, body, expected) => {
    expect(resendable(body)).toBe(expected);
  });
});
