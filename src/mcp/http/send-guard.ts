import { sendingState } from '../../core/sdk-seams.js';
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Bounds on what a client that does not read can make serve hold. A response's bytes stay in
 * serve's memory until the client takes them, so 20 clients that never read a 9 MB answer held
 * about 540 MB. Two bounds, per stream (one HTTP response: an answer, or an SSE stream):
 *
 * - **A send timeout**: a stream whose client takes none of what waits for it for `sendTimeoutMs`
 *   is cut (the socket is destroyed, which frees what it held). As nginx's `send_timeout`, it is
 *   the time between two moves forward, not for the whole answer: a slow reader that keeps
 *   reading is never cut.
 * - **A send-buffer bound**: a stream that still holds more than `maxBufferedBytes` unsent when
 *   more is written to it is cut: an SSE stream whose client stopped reading cannot pile up
 *   notifications. The message being written is not counted, so one large answer is never
 *   refused by it; its size is bounded elsewhere (max_message_bytes upstream, the tools' limits).
 */
export interface SendBounds {
  sendTimeoutMs: number;
  maxBufferedBytes: number;
  /** Told once per stream that was cut: which request it answered, and why. */
  onCut: (request: string, why: string) => void;
}

/** A ServerResponse class (for `createServer({ ServerResponse })`) that applies `bounds` to every response. */
export function boundedResponseClass(bounds: SendBounds): typeof ServerResponse<IncomingMessage> {
  return class BoundedResponse extends ServerResponse<IncomingMessage> {
    #watch: NodeJS.Timeout | undefined;
    #last = '';
    #stalledSince = 0;
    #closeHeard = false;

    // The overloads of write and end are passed through as they came.
    override write(...args: unknown[]): boolean {
      if (this.#overBound()) return false;
      const ok = (super.write as (...a: unknown[]) => boolean)(...args);
      this.#watchSending();
      return ok;
    }

    override end(...args: unknown[]): this {
      if (typeof args[0] !== 'function' && args[0] !== undefined && this.#overBound()) return this;
      (super.end as (...a: unknown[]) => this)(...args);
      this.#watchSending();
      return this;
    }

    /** Cuts the stream when it already holds more than the bound, before more is added. */
    #overBound(): boolean {
      const socket = this.socket;
      if (!socket || socket.destroyed) return false;
      const { maxBufferedBytes } = bounds;
      const held = socket.writableLength;
      if (held <= maxBufferedBytes) return false;
      this.#cut(socket, `it held ${held} unsent bytes, over serve.max_send_buffer_bytes (${maxBufferedBytes})`);
      return true;
    }

    /** Written data the system has not taken yet starts a watch; nothing waiting costs nothing. */
    #watchSending(): void {
      const socket = this.socket;
      if (!socket || socket.destroyed || socket.writableLength === 0) return;
      // A write moves the stream forward too: the stall counts from the last one.
      this.#last = sendingState(socket);
      this.#stalledSince = Date.now();
      if (this.#watch) return;
      const { sendTimeoutMs } = bounds;
      const check = () => {
        if (socket.destroyed || socket.writableLength === 0) return this.#unwatch();
        const now = sendingState(socket);
        if (now !== this.#last) {
          this.#last = now;
          this.#stalledSince = Date.now();
        } else if (Date.now() - this.#stalledSince >= sendTimeoutMs) {
          this.#cut(socket, `its client took nothing of ${socket.writableLength} waiting bytes for ${sendTimeoutMs} ms (serve.send_timeout_ms)`);
        }
      };
      this.#watch = setInterval(check, Math.max(10, Math.floor(sendTimeoutMs / 4)));
      this.#watch.unref();
      // Once per response: a long SSE stream starts and ends many watches.
      if (!this.#closeHeard) {
        this.#closeHeard = true;
        this.once('close', () => this.#unwatch());
      }
    }

    #unwatch(): void {
      clearInterval(this.#watch);
      this.#watch = undefined;
    }

    #cut(socket: Socket, why: string): void {
      this.#unwatch();
      bounds.onCut(`${this.req.method} ${this.req.url}`, why);
      socket.destroy();
    }
  };
}
