import { readFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { describe, expect, it } from 'vitest';
import { LeanReadBuffer } from '../../src/core/lean-message.js';
import { afterEachSend, interceptIncoming, replaceStdioReadBuffer, sendingState } from '../../src/core/sdk-seams.js';
import { ROOT } from '../helpers/cli.js';

/**
 * The contract of each seam in src/core/sdk-seams.ts with the SDK and Node installed: written
 * against @modelcontextprotocol/server and /client 2.4.0 (the lockfile's) and Node 20. A failure
 * here names the seam an update moved.
 */
const sdkVersion = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol', name, 'package.json'), 'utf8')) as { version: string }).version;

async function connected() {
  const server = new McpServer({ name: 'seams', version: '1' });
  server.registerTool('echo', { description: 'echo' }, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'seams', version: '1' });
  return { server, client, clientSide, serverSide };
}

describe('the SDK and Node seams (src/core/sdk-seams.ts)', () => {
  it('are checked against the SDK the lockfile installs', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
    for (const name of ['server', 'client']) expect(sdkVersion(name)).toBe(lock.packages[`node_modules/@modelcontextprotocol/${name}`]!.version);
  });

  it('interceptIncoming: after connect, every message passes the interceptor first, and the SDK still answers what it is passed', async () => {
    const { server, client, clientSide, serverSide } = await connected();
    const seen: string[] = [];
    interceptIncoming(serverSide, (message, extra, sdk) => {
      seen.push((message as { method?: string }).method ?? 'response');
      sdk?.(message, extra);
    });
    await client.connect(clientSide);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect(seen).toEqual(expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/list']));
    await client.close();
    await server.close();
  });

  it('afterEachSend: the SDK sends every message through the property, and `after` hears each once it is written', async () => {
    const { server, client, clientSide, serverSide } = await connected();
    const sent: JSONRPCMessage[] = [];
    afterEachSend(serverSide, (message) => void sent.push(message));
    await client.connect(clientSide);
    await client.listTools();
    expect(sent.filter((m) => 'result' in m)).toHaveLength(2); // initialize's answer and tools/list's
    await client.close();
    await server.close();
  });

  it("replaceStdioReadBuffer: StdioClientTransport reads the server's output through the private _readBuffer", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['-e', 'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "hello" }) + "\\n")'],
    });
    const appended: string[] = [];
    const received: JSONRPCMessage[] = [];
    let pending: JSONRPCMessage | undefined;
    const buffer = {
      append: (chunk: Buffer) => {
        appended.push(chunk.toString());
        pending = JSON.parse(chunk.toString()) as JSONRPCMessage;
      },
      readMessage: () => {
        const out = pending ?? null;
        pending = undefined;
        return out;
      },
      clear: () => undefined,
    };
    expect(replaceStdioReadBuffer(transport, buffer)).toBe(true);
    transport.onmessage = (message) => void received.push(message);
    const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
    await transport.start();
    await closed;
    expect(appended.join('')).toContain('"method":"hello"');
    expect(received).toEqual([{ jsonrpc: '2.0', method: 'hello' }]);
    expect(replaceStdioReadBuffer({} as never, buffer), 'a transport without the field').toBe(false);
  });

  it("replaceStdioReadBuffer: StdioServerTransport reads the client's input through the private _readBuffer", async () => {
    const input = new PassThrough();
    const transport = new StdioServerTransport(input, new PassThrough());
    const lines: string[] = [];
    const buffer = new LeanReadBuffer();
    const append = buffer.append.bind(buffer);
    buffer.append = (chunk: Buffer) => (lines.push(chunk.toString()), append(chunk));
    expect(replaceStdioReadBuffer(transport, buffer)).toBe(true);
    const received = new Promise<JSONRPCMessage>((resolve) => (transport.onmessage = resolve));
    await transport.start();
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    expect(await received).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(lines.join('')).toContain('"method":"ping"');
    await transport.close();
  });

  it("sendingState: a connected socket's handle has libuv's writeQueueSize", async () => {
    const sockets: Socket[] = [];
    const listener = createServer((s) => void sockets.push(s));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const socket = connect((listener.address() as AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    try {
      expect(typeof (socket as unknown as { _handle: { writeQueueSize: unknown } })._handle.writeQueueSize).toBe('number');
      expect(sendingState(socket)).toMatch(/^\d+\/\d+$/);
    } finally {
      socket.destroy();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
