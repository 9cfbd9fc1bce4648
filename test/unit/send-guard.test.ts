import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedResponseClass } from '../../src/mcp/http/send-guard.js';

/**
 * The send guard on real sockets: an HTTP server whose handler writes as the test says, and a
 * client that never reads (the kernel's buffers fill, then the stream's own queue grows).
 */
const opened: { close(): void }[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
});

async function serverWith(bounds: { sendTimeoutMs: number; maxBufferedBytes: number }, handler: (res: ServerResponse) => void) {
  const cuts: string[] = [];
  const ServerResponse = boundedResponseClass({ ...bounds, onCut: (request, why) => cuts.push(`${request}: ${why}`) });
  const server = createServer({ ServerResponse }, (_req, res) => handler(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  opened.push({ close: () => (server.closeAllConnections(), server.close()) });
  const port = (server.address() as AddressInfo).port;
  const stalledClient = (): Socket => {
    const socket = connect(port, '127.0.0.1');
    socket.write('GET /stream HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    socket.pause();
    opened.push({ close: () => socket.destroy() });
    return socket;
  };
  return { cuts, stalledClient };
}

const until = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return check();
};

describe('send guard', () => {
  it('cuts a stream that already holds more than the bound when more is written, and never refuses the first large write', async () => {
    const MiB = 1024 * 1024;
    let writes = 0;
    let accepted = 0;
    const { cuts, stalledClient } = await serverWith({ sendTimeoutMs: 60_000, maxBufferedBytes: 16 * MiB }, (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // One message larger than the bound goes out; then a writer that ignores backpressure piles on.
      const first = Buffer.alloc(24 * MiB, 97);
      if (res.write(first) || res.writableLength > 0) accepted++;
      const timer = setInterval(() => {
        writes++;
        res.write(Buffer.alloc(MiB, 98));
        if (res.destroyed || writes > 100) clearInterval(timer);
      }, 5);
    });
    stalledClient();
    expect(await until(() => cuts.length > 0, 5000)).toBe(true);
    expect(accepted).toBe(1);
    expect(cuts).toHaveLength(1);
    expect(cuts[0]).toMatch(/^GET \/stream: it held \d+ unsent bytes, over serve\.max_send_buffer_bytes \(16777216\)/);
  });

  it('watches a long stream again and again without piling up listeners', async () => {
    let closeListeners = -1;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const { cuts, stalledClient } = await serverWith({ sendTimeoutMs: 1000, maxBufferedBytes: 64 * 1024 * 1024 }, (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const before = res.listenerCount('close');
      void (async () => {
        // Twelve writes, each larger than the kernel takes at once, with a pause after each has
        // drained: each starts a watch, which ends in the pause.
        for (let i = 0; i < 12; i++) {
          if (!res.write(Buffer.alloc(8 * 1024 * 1024, 100))) await new Promise((r) => res.once('drain', r));
          await new Promise((r) => setTimeout(r, 300)); // longer than a watch's check (every 250 ms)
        }
        closeListeners = res.listenerCount('close') - before;
        res.end();
        finished();
      })();
    });
    const client = stalledClient();
    client.on('data', () => undefined);
    const reading = setInterval(() => (client.isPaused() ? client.resume() : client.pause()), 20);
    await done;
    clearInterval(reading);
    expect(cuts).toEqual([]);
    expect(closeListeners).toBeLessThanOrEqual(1);
  });

  it('cuts a stream whose client takes nothing for the send timeout, and leaves one that has nothing waiting', async () => {
    const { cuts, stalledClient } = await serverWith({ sendTimeoutMs: 300, maxBufferedBytes: 64 * 1024 * 1024 }, (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(Buffer.alloc(32 * 1024 * 1024, 99));
    });
    const client = stalledClient();
    expect(await until(() => cuts.length > 0, 3000)).toBe(true);
    expect(cuts[0]).toMatch(/took nothing of \d+ waiting bytes for 300 ms \(serve\.send_timeout_ms\)/);
    // The client, reading at last, finds the connection ended short of the answer.
    let received = 0;
    client.on('data', (d: Buffer) => void (received += d.length));
    client.resume();
    expect(await until(() => client.closed, 3000)).toBe(true);
    expect(received).toBeLessThan(32 * 1024 * 1024);

    // A small answer is taken by the kernel at once: nothing waits, nothing is watched or cut.
    const small = await serverWith({ sendTimeoutMs: 100, maxBufferedBytes: 1024 }, (res) => res.end('ok'));
    small.stalledClient();
    await new Promise((r) => setTimeout(r, 400));
    expect(small.cuts).toEqual([]);
  });
});
