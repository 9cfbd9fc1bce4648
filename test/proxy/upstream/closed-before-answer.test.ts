import { describe, expect, it } from 'vitest';
import { closedBeforeAnswer } from '../../../src/proxy/upstream/closed-before-answer.js';

/** undici's fetch failure: TypeError('fetch failed') with the connection's error as its cause. */
const fetchFailed = (cause: object) => new TypeError('fetch failed', { cause });
const withCode = (message: string, code: string) => fetchFailed(Object.assign(new Error(message), { code }));
const otherSideClosed = withCode('other side closed', 'UND_ERR_SOCKET');
const reset = withCode('read ECONNRESET', 'ECONNRESET');
const pipe = withCode('write EPIPE', 'EPIPE');

const reused = { reused: true, responseStarted: false };
const fresh = { reused: false, responseStarted: false };
const answering = { reused: true, responseStarted: true };

describe('closedBeforeAnswer: may a failed fetch be the server ending an idle, reused connection as the request was sent?', () => {
  it.each([
    ['the other side closed a reused connection, no byte of the answer', otherSideClosed, reused, true],
    ['a reused connection reset, no byte of the answer', reset, reused, true],
    ['a request written on a reused connection already gone', pipe, reused, true],
    // A connection made for this request was never idle: the server may have read it.
    ['the other side closed a new connection', otherSideClosed, fresh, false],
    ['a new connection reset', reset, fresh, false],
    ['a request written on a new connection already gone', pipe, fresh, false],
    ['the other side closed after the answer had begun', otherSideClosed, answering, false],
    ['a reset after the answer had begun', reset, answering, false],
    ['a refused connection (no server there)', withCode('connect ECONNREFUSED', 'ECONNREFUSED'), reused, false],
    ['the headers timed out (the server has the request)', withCode('Headers Timeout Error', 'UND_ERR_HEADERS_TIMEOUT'), reused, false],
    ['an abort', new DOMException('This operation was aborted', 'AbortError'), reused, false],
    ['a TypeError without a cause', new TypeError('fetch failed'), reused, false],
    ['a cause without a code', fetchFailed(new Error('other side closed')), reused, false],
    ['not an error at all', 'fetch failed', reused, false],
  ] as const)('%s', (_what, error, facts, expected) => {
    expect(closedBeforeAnswer(error, facts)).toBe(expected);
  });
});
