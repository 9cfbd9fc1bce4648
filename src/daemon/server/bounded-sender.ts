import type { Socket } from 'node:net';
import { encodeLine, type DaemonMessage } from '../client/protocol.js';

/** What a client may leave unread on its socket before it is cut off, and how long it may take nothing. */
export const MAX_UNSENT_BYTES = 16 * 1024 * 1024;
export const SEND_STALL_MS = 30_000;

/**
 * Writes messages to one client with backpressure: past MAX_UNSENT_BYTES waiting to be taken, or
 * when it takes nothing for SEND_STALL_MS while output waits, the client is cut off (`cut`), so a
 * command that stops reading cannot make the daemon hold its whole output.
 */
export function boundedSender(socket: Socket, cut: (why: string) => void): (message: DaemonMessage) => void {
  let stall: NodeJS.Timeout | undefined;
  const arm = () => {
    if (stall || socket.writableLength === 0) return;
    stall = setTimeout(() => cut(`it took nothing for ${SEND_STALL_MS / 1000} s`), SEND_STALL_MS);
    stall.unref();
  };
  socket.on('drain', () => {
    clearTimeout(stall);
    stall = undefined;
  });
  socket.once('close', () => clearTimeout(stall));
  return (message) => {
    if (socket.destroyed) return;
    socket.write(encodeLine(message));
    if (socket.writableLength > MAX_UNSENT_BYTES) return cut(`more than ${MAX_UNSENT_BYTES} bytes waited for it`);
    arm();
  };
}
