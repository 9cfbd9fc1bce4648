import type { IncomingMessage, ServerResponse } from 'node:http';
import { classifyInboundRequest, createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { Runtime } from '../app/runtime.js';
import { createToolServer } from './tool-server.js';

/**
 * The 2026-07-28 ("modern") leg of `serve --http`, one per route. A modern request carries its
 * version, capabilities and client info in `_meta`, so it is answered by a fresh server from the
 * same factory as a legacy session's and nothing is kept between requests: replicas behind a
 * round-robin balancer answer it alike. The SDK's handler owns the era rules (`server/discover`,
 * the -32020..-32022 error ladder, caching hints, `subscriptions/listen`); the view's hub is the
 * shared one, and its change events are published to every open listen stream.
 */
export interface ModernRoute {
  serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  close(): Promise<void>;
}

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** Whether a POST belongs to the modern leg: the SDK's own classification, so the branch never disagrees with it. */
export function isModernPost(req: IncomingMessage, body: unknown): boolean {
  return (
    classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: first(req.headers['mcp-protocol-version']),
      mcpMethodHeader: first(req.headers['mcp-method']),
      mcpNameHeader: first(req.headers['mcp-name']),
      body,
    }).kind !== 'legacy'
  );
}

/** The resource URIs a subscriptions/listen request asks to hear about. */
export function listenedResources(body: unknown): string[] {
  const m = body as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | undefined;
  if (m?.method !== 'subscriptions/listen') return [];
  const uris = m.params?.notifications?.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : [];
}

export function modernRoute(runtime: Runtime, view: string | undefined, options: { maxBodyBytes: number }): ModernRoute {
  let unsubscribe: (() => void)[] | undefined;
  const handler: McpHttpHandler = createMcpHandler(
    async () => {
      const hub = await runtime.openHub(view, { shared: true, era: 'modern' });
      unsubscribe ??= [
        hub.onListChanged(() => handler.notify.toolsChanged()),
        hub.onPromptsChanged(() => handler.notify.promptsChanged()),
        hub.onResourcesChanged(() => handler.notify.resourcesChanged()),
        hub.onResourceUpdated((uri) => handler.notify.resourceUpdated(uri)),
      ];
      return createToolServer({ hub: () => runtime.openHub(view, { shared: true, era: 'modern' }), runtime, hasServers: hub.hasServers, perRequest: true });
    },
    {
      // Legacy traffic never gets here (serveHttp keeps its sessions); refusing it is a safety net.
      legacy: 'reject',
      maxRequestBodySize: options.maxBodyBytes,
      onerror: (error) => runtime.logger.debug(`http (2026-07-28): ${error.message}`),
    },
  );
  const node = toNodeHandler(handler);
  return {
    async serve(req, res, body) {
      // The SDK answers subscriptions/listen itself; the resources a stream asks about are
      // subscribed to upstream for as long as it is open (a 2025 server tells only subscribers).
      const uris = listenedResources(body);
      if (uris.length) {
        const hub = await runtime.openHub(view, { shared: true, era: 'modern' });
        const stream = {};
        res.once('close', () => void hub.clients.detach(stream).catch(() => undefined));
        await Promise.allSettled(uris.map((uri) => hub.clients.subscribe(stream, uri)));
      }
      return node(req, res, body);
    },
    async close() {
      unsubscribe?.forEach((off) => off());
      await handler.close();
    },
  };
}
