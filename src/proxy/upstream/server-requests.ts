import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult, ClientCapabilities, RequestId } from '@modelcontextprotocol/server';
import type { InputBridge, InputMethod } from '../eras/input-bridge.js';
import type { DownstreamRelay } from './upstream-connection.js';

/**
 * Where a server's requests to its client (sampling, elicitation, roots) go: on the connection
 * 2026 clients share, to the bridged call they belong to (./input-bridge.ts); on a client's own
 * connection, to that client, related to its oldest call to this server in flight (over HTTP: on
 * that call's stream). Only what mcpkit offered the server is answered.
 */
export function routeServerRequests(
  client: Client,
  offered: ClientCapabilities,
  to: { bridge?: InputBridge<CallToolResult>; downstream?: DownstreamRelay; related: () => RequestId | undefined },
): void {
  const methods: [InputMethod, keyof ClientCapabilities][] = [
    ['sampling/createMessage', 'sampling'],
    ['elicitation/create', 'elicitation'],
    ['roots/list', 'roots'],
  ];
  for (const [method, capability] of methods) {
    if (!offered[capability]) continue;
    const { bridge, downstream } = to;
    if (bridge) client.setRequestHandler(method, async (request: { params?: unknown }) => (await bridge.ask(method, request.params)) as never);
    if (downstream)
      client.setRequestHandler(method, async (request: { params?: unknown }) => downstream.request(method, request.params, to.related()) as never);
  }
}

/** Every page of a paginated list, following its cursors; a page's failure is what `failure` makes of it. */
export async function allPages<T>(page: (cursor?: string) => Promise<{ items: T[]; next?: string }>, failure: (error: unknown) => unknown): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const r = await page(cursor).catch((error: unknown) => {
      throw failure(error);
    });
    items.push(...r.items);
    cursor = r.next;
  } while (cursor);
  return items;
}
