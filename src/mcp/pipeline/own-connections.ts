import type { ClientCapabilities } from '@modelcontextprotocol/server';

/**
 * Which of a client's capabilities make it worth connections of its own (see ProxyHub.downstream):
 * what a server may ask of it, sampling and elicitation, and roots only where some server would be
 * offered them (a remote client's go to `roots: forward` servers alone). Pure.
 */
export function capabilitiesNeedOwnConnections(capabilities: ClientCapabilities | undefined, rootsReachAServer: boolean): boolean {
  return Boolean(capabilities?.sampling || capabilities?.elicitation || (rootsReachAServer && capabilities?.roots));
}
