import type { Transport, RequestId } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { installFastPath } from './fast-path.js';
import { createToolServer, type ToolServerOptions } from './tool-server.js';

/**
 * Serves over stdio until the client goes away (stdin closes) or a signal arrives. stdout carries
 * only protocol messages; everything else goes to stderr. Resolves when the session has ended.
 */
export async function serveStdio(options: ToolServerOptions): Promise<void> {
  const { runtime } = options;
  const server = createToolServer(options);
  const transport = new StdioServerTransport();
  let closing: Promise<void> | undefined;
  const closed = new Promise<void>((resolve) => {
    const cleanup = server.onclose;
    server.onclose = () => {
      cleanup?.();
      resolve();
    };
  });
  const shutdown = (why: string) => {
    runtime.logger.debug(`serve: shutting down (${why})`);
    return (closing ??= server.close().catch(() => undefined));
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await server.connect(transport);
  installFastPath(transport, server.resolvedHub);
  // The SDK's stdio transport does not notice end-of-input; a client that closes our stdin is done
  // with us, once every request it sent has its answer (`printf ... | mcpkit serve` gets them all).
  const answered = trackAnswers(transport);
  process.stdin.once('end', () => void answered().then(() => shutdown('stdin closed')));
  runtime.logger.debug('serve: ready on stdio');
  await closed;
}

/**
 * Counts the client's requests still without an answer (a cancelled one needs none). Returns a
 * function whose promise settles when none is left.
 */
function trackAnswers(transport: Transport): () => Promise<void> {
  const open = new Set<RequestId>();
  let idle: (() => void) | undefined;
  const settle = () => {
    if (open.size === 0) idle?.();
  };
  const inbound = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as { id?: RequestId; method?: string; params?: { requestId?: RequestId } };
    if (m.method !== undefined && m.id !== undefined) open.add(m.id);
    if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined) open.delete(m.params.requestId);
    inbound?.(message, extra);
    settle();
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    await send(message, options);
    const m = message as { id?: RequestId; method?: string };
    if (m.method === undefined && m.id !== undefined) open.delete(m.id);
    settle();
  };
  return () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve)));
}
