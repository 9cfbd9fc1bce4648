import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
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
  // The SDK's stdio transport does not notice end-of-input; a client that closes our stdin is done with us.
  process.stdin.once('end', () => void shutdown('stdin closed'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await server.connect(transport);
  installFastPath(transport, server.resolvedHub);
  runtime.logger.debug('serve: ready on stdio');
  await closed;
}
