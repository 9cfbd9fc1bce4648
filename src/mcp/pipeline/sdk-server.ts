import { Server } from '@modelcontextprotocol/server';
import type { ServerCapabilities } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { Dispatcher, type DispatcherOptions } from './dispatcher.js';
import { sdkRequestContext, type Downstream } from './request-context.js';

export interface SdkServerOptions extends DispatcherOptions {
  /** Extensions the route serves beside the server (the task host, ./task-host.ts): server/discover names them. */
  extensions?: NonNullable<ServerCapabilities['extensions']>;
}

const INSTRUCTIONS =
  'mcpkit tools, and the tools of the MCP servers it proxies. Every mcpkit tool returns JSON; a failed call has isError set and an error object with code, message and often a hint on what to do next.';

/** Results of server-to-client requests are passed back to the upstream as the client gave them. */
const PassThrough = z.looseObject({});

/** A person may be answering (elicitation); the upstream's own timeout bounds the wait. */
const CLIENT_REQUEST_TIMEOUT_MS = 10 * 60_000;

/** The client of an SDK server's connection, as the dispatcher sees it. */
function downstreamOf(server: Server): Downstream {
  return {
    capabilities: () => server.getClientCapabilities(),
    client: () => server.getClientVersion(),
    request: (method, params, related) =>
      server.request({ method, params } as never, PassThrough, {
        ...(related !== undefined ? { relatedRequestId: related } : {}),
        timeout: CLIENT_REQUEST_TIMEOUT_MS,
      }) as Promise<Record<string, unknown>>,
    notify: (notification, related) => server.notification(notification as never, related !== undefined ? { relatedRequestId: related } : undefined),
  };
}

/**
 * The SDK's server for one client connection (or one 2026-07-28 request), as a codec in front of
 * the dispatcher: the SDK owns the handshake, the era rules and the schemas; every request method
 * it hands on is answered by the dispatcher's table. Capabilities follow the view: prompts,
 * resources (with subscriptions) and completions only when it has upstream servers; logging
 * always (mcpkit honours logging/setLevel itself).
 */
export function sdkServer(options: SdkServerOptions): { server: Server; dispatcher: Dispatcher } {
  const server = new Server(
    { name: 'mcpkit', title: 'mcpkit', version: options.runtime.version() },
    {
      capabilities: {
        // A reloaded config changes the catalog (./run-serve.ts follows the file), as do upstream servers.
        tools: { listChanged: true },
        logging: {},
        ...(options.hasServers ? { prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true }, completions: {} } : {}),
      },
      instructions: INSTRUCTIONS,
    },
  );
  if (options.extensions) server.registerCapabilities({ extensions: options.extensions });
  const dispatcher = new Dispatcher(options, downstreamOf(server));
  for (const [method, handle] of dispatcher.methods) {
    server.setRequestHandler(
      method as never,
      ((request: { params?: unknown }, ctx: Parameters<typeof sdkRequestContext>[0]) => handle(request.params ?? {}, sdkRequestContext(ctx))) as never,
    );
  }
  server.setNotificationHandler('notifications/roots/list_changed', () => dispatcher.rootsChanged());
  server.onclose = () => dispatcher.close();
  server.onerror = (error) => options.runtime.logger.error(`MCP: ${error.message}`);
  return { server, dispatcher };
}
