import type { ClientCapabilities } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../../config/schema/schema.js';
import type { DownstreamRelay, UpstreamOptions } from './upstream-options.js';

/**
 * What an upstream server is offered of the client capabilities when mcpkit connects to it: a
 * security decision (a remote client's roots name folders on its machine) and an era decision (what
 * the bridge can answer for 2026 clients), both pure. Apart from ./upstream-connection.ts, which
 * only hands the result to the handshake, so that each rule is table-tested on its own.
 */

/** The client capabilities an upstream may be offered: the ones whose requests mcpkit relays. */
const RELAYED_CAPABILITIES = ['sampling', 'elicitation', 'roots'] as const;

/**
 * What a 2025 server is offered on the connection 2026 clients share. Not roots: a 2025 server asks
 * for roots when it connects, outside any call, where no 2026 client can be asked.
 */
const BRIDGED_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} } };

/**
 * What a server is offered of its downstream client's capabilities: those the client declared,
 * except a remote client's roots, unless the server's entry says `roots: forward`. A remote
 * client's roots are folders on its machine; a server on this one would take them for its own
 * (server-filesystem replaces its allowed folders with them). Pure.
 */
export function relayedCapabilities(
  downstream: Pick<DownstreamRelay, 'capabilities' | 'remote'> | undefined,
  config: Pick<ServerConfig, 'roots'>,
): ClientCapabilities {
  const offered: ClientCapabilities = {};
  for (const key of RELAYED_CAPABILITIES) {
    if (!downstream?.capabilities[key]) continue;
    if (key === 'roots' && !forwardsRoots(downstream, config)) continue;
    Object.assign(offered, { [key]: downstream.capabilities[key] });
  }
  return offered;
}

/** Whether a client's roots reach this server: always from a local (stdio) client; from a remote one only with `roots: forward`. Pure. */
export function forwardsRoots(client: { remote?: boolean } | undefined, config: Pick<ServerConfig, 'roots'>): boolean {
  return client?.remote !== true || config.roots === 'forward';
}

/**
 * Everything a connection offers: what is relayed, and for 2026 clients what may be bridged (they
 * declare capabilities per request, a 2025 server learns them once; a question for a client that
 * lacks the capability is refused, ../eras/input-bridge.ts). Pure.
 */
export function offeredCapabilities(options: Pick<UpstreamOptions, 'downstream' | 'config' | 'clientEra'>): ClientCapabilities {
  const offered = relayedCapabilities(options.downstream, options.config);
  if (options.clientEra === 'modern') Object.assign(offered, BRIDGED_CAPABILITIES);
  return offered;
}
