import type { RequestId } from '@modelcontextprotocol/server';
import type { ServerResponse } from 'node:http';
import { passedAnswer } from '../../core/answer-lines.js';
import { wireError } from '../pipeline/protocol-errors.js';
import type { OneBodyWriter } from '../pipeline/wire-calls.js';
import { sendJson } from './http-wire.js';

/**
 * How the HTTP hot path (../pipeline/wire-calls.ts answerCallAsJson) writes a call's answer: the
 * upstream's own line, the client's id spliced in, when nothing in it changed and every JSON
 * reader reads it as mcpkit did (../../core/canonical-answer.ts); else the result serialized
 * again. Either way it returns the bytes of the result, which the audit log records.
 */

function sendText(res: ServerResponse, text: string): number {
  const bytes = Buffer.byteLength(text);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes });
  res.end(text);
  return bytes;
}

/** The bytes of a serialized response around its result: `{"jsonrpc":"2.0","id":ID,"result":` and `}`. */
const envelopeBytes = (id: RequestId) => Buffer.byteLength(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":}`);

export const oneBodyWriter: OneBodyWriter = {
  answer(res, id, result) {
    const passed = passedAnswer(result, id);
    if (!passed) return sendText(res, JSON.stringify({ jsonrpc: '2.0', id, result })) - envelopeBytes(id);
    const { text, resultStart, resultEnd } = passed;
    // All but what lies around the result: the envelope, as the upstream spaced it.
    return sendText(res, text) - Buffer.byteLength(text.slice(0, resultStart)) - Buffer.byteLength(text.slice(resultEnd));
  },
  error(res, id, error) {
    sendJson(res, 200, { jsonrpc: '2.0', id, error: wireError(error) });
  },
};
