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

function sendText(res: ServerResponse, text: string, bytes: number): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes });
  res.end(text);
}

/** The bytes of `{"jsonrpc":"2.0","id":` `,"result":` `}`, around the id and the result. */
const ENVELOPE_BYTES = 33;

export const oneBodyWriter: OneBodyWriter = {
  answer(res, id, result) {
    const passed = passedAnswer(result, id);
    if (!passed) {
      // Serialized once, counted once: the result's bytes are what the audit log records.
      const idText = JSON.stringify(id);
      const resultText = JSON.stringify(result);
      const resultBytes = Buffer.byteLength(resultText);
      sendText(res, `{"jsonrpc":"2.0","id":${idText},"result":${resultText}}`, resultBytes + ENVELOPE_BYTES + Buffer.byteLength(idText));
      return resultBytes;
    }
    const { text, resultStart, resultEnd } = passed;
    const bytes = Buffer.byteLength(text);
    sendText(res, text, bytes);
    // All but what lies around the result: the envelope, as the upstream spaced it.
    return bytes - Buffer.byteLength(text.slice(0, resultStart)) - Buffer.byteLength(text.slice(resultEnd));
  },
  error(res, id, error) {
    sendJson(res, 200, { jsonrpc: '2.0', id, error: wireError(error) });
  },
};
