import type { Socket } from 'node:net';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

/**
 * Every place mcpkit reaches past the public API of the MCP SDK (2.4.0, the lockfile's) or of
 * Node, in one module: each seam says what it relies on and which upstream change would let it go,
 * and test/unit/sdk-seams.test.ts checks each one against the installed SDK and Node, so an update
 * that moves one fails there, by name, rather than somewhere downstream.
 */

type MessageHandler = NonNullable<Transport['onmessage']>;

/**
 * Puts `intercept` in front of the handler the SDK gave a transport when it connected: the SDK's
 * Protocol assigns `transport.onmessage` in `connect()`, and a transport calls that property for
 * each message. `sdk` is that handler, for what the interceptor passes on. Used by the forwarding
 * hot path, the upstream's progress tap and serve's count of unanswered requests. It goes when the
 * SDK offers a hook for a message before its Protocol handles it.
 */
export function interceptIncoming(
  transport: Transport,
  intercept: (message: JSONRPCMessage, extra: Parameters<MessageHandler>[1], sdk: MessageHandler | undefined) => void,
): void {
  const sdk = transport.onmessage;
  transport.onmessage = (message, extra) => intercept(message, extra, sdk);
}

/**
 * Calls `after` once each message the SDK sends through the transport is written. The SDK's
 * Protocol calls `transport.send` as a property, so replacing it after connect sees every
 * message. It goes with the same hook as interceptIncoming.
 */
export function afterEachSend(transport: Transport, after: (message: JSONRPCMessage) => void): void {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    await send(message, options);
    after(message);
  };
}

/**
 * Puts `buffer` in place of a stdio transport's private `_readBuffer` (a ReadBuffer: append,
 * readMessage, clear). StdioClientTransport's: so that one message over the limit fails its own
 * request instead of closing the connection under every call in flight (the SDK takes only
 * `maxBufferSize`, past which it closes). StdioServerTransport's: so that a message is read
 * without the schema's copy where its shape is plain (core/lean-message.ts). Returns false where
 * the field is not there (the SDK changed). It goes when the SDK bounds one message rather than
 * the buffer and lets a transport take its reader.
 */
export function replaceStdioReadBuffer(transport: Transport, buffer: unknown): boolean {
  const holder = transport as unknown as { _readBuffer?: unknown };
  if (!holder._readBuffer) return false;
  holder._readBuffer = buffer;
  return true;
}

/**
 * How much of a socket's sending is still queued, as a key that changes whenever it moves: the
 * socket's own count (whole writes until each completes) and libuv's count of the write in flight
 * (`socket._handle.writeQueueSize`, private to Node), which falls as the kernel takes pieces of
 * it. Without the second, a large write alone would seem to stand still. It goes when Node
 * exposes a write's progress.
 */
export function sendingState(socket: Socket): string {
  const handle = (socket as unknown as { _handle?: { writeQueueSize?: number } | null })._handle;
  return `${socket.writableLength}/${handle?.writeQueueSize ?? 0}`;
}
