import { isUtf8 } from 'node:buffer';
import { parseJSONRPCMessage, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/server';
import { canonicalAnswer, type CanonicalAnswer } from './canonical-answer.js';
import { leanMessage } from './lean-message.js';

/*
 * The lines upstream answers came in, kept beside the results read from them, so that a carrier
 * that sends a result as it came (the HTTP hot path) can send those bytes rather than serialize
 * the result again. Keyed by the result object JSON.parse made: a result anything changed is a
 * new object (the hot path changes none), so it finds no line and is serialized as before.
 */

/**
 * Shorter lines are serialized again: below about 1 KiB JSON.stringify costs less than the check
 * (measured: 95 bytes, 2-4 µs against 4-8; 10 KiB of text, 55-100 µs against 15-30; 1 MiB, 4-9 ms
 * against 0.06-0.3).
 */
const MIN_PASSED_CHARS = 1024;

const lines = new WeakMap<object, { line: string; message: { id: RequestId; result: object } }>();

/**
 * One line as a message (./lean-message.ts messageOfLine), keeping the line of a tools/call
 * result read as it stands. `bytes`: what the line was decoded from; a line is kept only when they
 * were valid UTF-8 (a decoder replaced nothing), so the text is what the upstream sent. Asked only
 * of a line long enough to keep, since it reads every byte again.
 */
export function messageKeepingLine(line: string, bytes: Uint8Array): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  const lean = leanMessage(value);
  if (lean === undefined) return parseJSONRPCMessage(value);
  const answer = lean as { id: RequestId; result?: { content?: unknown } };
  if (line.length >= MIN_PASSED_CHARS && answer.result !== undefined && Array.isArray(answer.result.content) && isUtf8(bytes))
    lines.set(answer.result, { line, message: answer as { id: RequestId; result: object } });
  return lean;
}

/** The answer to send for `result` with the client's id, as its upstream's bytes, when they can be passed on (./canonical-answer.ts). */
export function passedAnswer(result: object, clientId: RequestId): CanonicalAnswer | undefined {
  const kept = lines.get(result);
  if (!kept) return undefined;
  lines.delete(result); // sent once
  return canonicalAnswer(kept.line, kept.message, clientId);
}
