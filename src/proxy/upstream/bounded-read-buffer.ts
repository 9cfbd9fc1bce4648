import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/client';
import { messageKeepingLine } from '../../core/answer-lines.js';

/** A message left out for its size: the request it answered, when its id could be read. */
export interface DroppedMessage {
  id: RequestId | undefined;
  bytes: number;
}

/** Bytes kept of each end of a dropped line, to find its id. */
const EDGE = 512;
const NEWLINE = 10;
const ID_AT_START = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;
const ID_AT_END = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/** The id of a JSON-RPC message from the ends of its line (where serializers put it), if it is there. Pure. */
export function idFromEnds(head: string, tail: string): RequestId | undefined {
  const found = ID_AT_START.exec(head) ?? ID_AT_END.exec(tail);
  if (!found) return undefined;
  return JSON.parse(found[1]!) as RequestId;
}

/**
 * The read buffer of a stdio upstream, bounded per message rather than per connection. A line
 * (one JSON-RPC message) longer than `maxBytes` is dropped as it streams in, never held whole,
 * and `dropped` may answer its request with an error of its own. The SDK's buffer throws instead,
 * which closes the transport: every call in flight on the shared connection failed, and the
 * server was restarted and lost its state, for one large answer.
 */
export class BoundedReadBuffer {
  /** Whole lines, and the errors that stand for dropped ones, in the order they came. */
  private queue: (Buffer | JSONRPCMessage)[] = [];
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private dropping: { head: Buffer; tail: Buffer; bytes: number } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly dropped: (message: DroppedMessage) => JSONRPCMessage | undefined,
    /** A response that is JSON but not valid JSON-RPC: the error that answers its request instead. */
    private readonly malformed?: (message: { id: RequestId; reason: string }) => JSONRPCMessage | undefined,
  ) {}

  append(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) {
      const end = rest.indexOf(NEWLINE);
      const piece = end < 0 ? rest : rest.subarray(0, end);
      if (this.dropping) {
        this.dropping.tail = lastBytes(Buffer.concat([this.dropping.tail, piece.subarray(-EDGE)]));
        this.dropping.bytes += piece.length;
      } else if (this.partialBytes + piece.length > this.maxBytes) {
        const line = Buffer.concat([...this.partial, piece]);
        this.dropping = { head: Buffer.from(line.subarray(0, EDGE)), tail: lastBytes(line), bytes: line.length };
        this.partial = [];
        this.partialBytes = 0;
      } else {
        this.partial.push(piece);
        this.partialBytes += piece.length;
      }
      if (end < 0) return;
      if (this.dropping) {
        const { head, tail, bytes } = this.dropping;
        this.dropping = undefined;
        const answer = this.dropped({ id: idFromEnds(head.toString('utf8'), tail.toString('utf8')), bytes });
        if (answer) this.queue.push(answer);
      } else {
        this.queue.push(Buffer.concat(this.partial));
        this.partial = [];
        this.partialBytes = 0;
      }
      rest = rest.subarray(end + 1);
    }
  }

  readMessage(): JSONRPCMessage | null {
    while (this.queue.length > 0) {
      const item = this.queue.shift()!;
      if (!Buffer.isBuffer(item)) return item;
      const line = item.toString('utf8').replace(/\r$/, '');
      try {
        // A call's answer is read once, not copied by the message schema; its line is kept for a carrier that passes it on.
        return messageKeepingLine(line, item);
      } catch (error) {
        if (error instanceof SyntaxError) continue; // as the SDK's buffer: a line that is not JSON is skipped
        // JSON, but not a JSON-RPC message (a result that is not an object): the SDK would drop it, and
        // its request would wait for its timeout. An answer to a request fails that request at once.
        const id = responseId(line);
        const answer = id === undefined ? undefined : this.malformed?.({ id, reason: (error as Error).message });
        if (answer) return answer;
        throw error;
      }
    }
    return null;
  }

  clear(): void {
    this.queue = [];
    this.partial = [];
    this.partialBytes = 0;
    this.dropping = undefined;
  }
}

/** The id of a line that parses as a JSON-RPC response (an id, no method), if it is one. */
function responseId(line: string): RequestId | undefined {
  try {
    const m = JSON.parse(line) as { id?: unknown; method?: unknown } | null;
    if (m === null || typeof m !== 'object' || m.method !== undefined) return undefined;
    return typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
  } catch {
    return undefined;
  }
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length > EDGE ? Buffer.from(buffer.subarray(-EDGE)) : buffer;
}
