import { parseJSONRPCMessage, RELATED_TASK_META_KEY, STDIO_DEFAULT_MAX_BUFFER_SIZE, type JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * Reading a JSON-RPC message off a stdio line at the cost of JSON.parse. The SDK's reader runs its
 * message schema (zod) over every message, which builds a copy of the whole message; on a proxy's
 * hot path that is the work of reading it twice. The shapes a call and its answer have (a request
 * or notification whose `_meta` holds at most a progress token, a result without `_meta`) are
 * checked here by hand, with exactly the schema's rules for those shapes, and kept as parsed; any
 * other message goes through the schema, so what is accepted or refused is what the SDK decides.
 */

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** RequestIdSchema and ProgressTokenSchema: a string or an integer (zod's int(): a safe one). */
const isIdOrToken = (value: unknown): boolean => typeof value === 'string' || Number.isSafeInteger(value);

const hasOnly = (value: Record<string, unknown>, keys: ReadonlySet<string>): boolean => {
  for (const key in value) if (!keys.has(key)) return false;
  return true;
};

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);

/** Params the schema would keep as they are: absent, or an object whose `_meta` (if any) has no related task and a valid progress token. */
function plainParams(params: unknown): boolean {
  if (params === undefined) return true;
  if (!isObject(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isObject(meta) || Object.hasOwn(meta, RELATED_TASK_META_KEY)) return false;
  return meta.progressToken === undefined ? !Object.hasOwn(meta, 'progressToken') : isIdOrToken(meta.progressToken);
}

/**
 * `value` itself when it is a message of a shape the SDK's JSONRPCMessageSchema accepts unchanged
 * (its strict top-level keys included); undefined when the schema must decide. Pure.
 */
export function leanMessage(value: unknown): JSONRPCMessage | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0') return undefined;
  if (typeof value.method === 'string') {
    const keys = value.id === undefined ? NOTIFICATION_KEYS : REQUEST_KEYS;
    if (value.id !== undefined && !isIdOrToken(value.id)) return undefined;
    return hasOnly(value, keys) && plainParams(value.params) ? (value as unknown as JSONRPCMessage) : undefined;
  }
  if (value.method !== undefined || !isIdOrToken(value.id) || !hasOnly(value, RESULT_KEYS)) return undefined;
  // A result's _meta may carry serverInfo, which the schema rewrites (.catch): it decides those.
  return isObject(value.result) && value.result._meta === undefined && !Object.hasOwn(value.result, '_meta') ? (value as unknown as JSONRPCMessage) : undefined;
}

/** One line as a message: JSON.parse, then the schema only where leanMessage leaves it to it. Throws as the SDK's deserializeMessage does. */
export function messageOfLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  return leanMessage(value) ?? parseJSONRPCMessage(value);
}

/**
 * The SDK's stdio ReadBuffer (append, readMessage, clear; the same limit on what is held unread,
 * the same skipping of lines that are not JSON), reading each line with messageOfLine.
 */
export class LeanReadBuffer {
  private buffer?: Buffer;

  constructor(private readonly maxBufferSize = STDIO_DEFAULT_MAX_BUFFER_SIZE) {}

  append(chunk: Buffer): void {
    const size = (this.buffer?.length ?? 0) + chunk.length;
    if (size > this.maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`);
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
  }

  readMessage(): JSONRPCMessage | null {
    while (this.buffer) {
      const end = this.buffer.indexOf(10);
      if (end === -1) return null;
      const line = this.buffer.toString('utf8', 0, end).replace(/\r$/, '');
      this.buffer = end + 1 < this.buffer.length ? this.buffer.subarray(end + 1) : undefined;
      try {
        return messageOfLine(line);
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
      }
    }
    return null;
  }

  clear(): void {
    this.buffer = undefined;
  }
}
