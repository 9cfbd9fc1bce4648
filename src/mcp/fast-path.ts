import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ProxyHub } from '../proxy/hub.js';

/**
 * Puts the hub's hot path in front of the SDK server on one transport: a tools/call that the hub
 * can forward is answered here, from the upstream's response, with the client's own request id;
 * everything else (and every call the hub declines) goes to the SDK server unchanged. Cancellation
 * and progress for forwarded calls are relayed. Responses keep the JSON-RPC shape and ids the
 * client expects, so any MCP client sees the same protocol as on the ordinary path.
 */
export function installFastPath(transport: Transport, hub: () => ProxyHub | undefined): void {
  const sdk = transport.onmessage;
  const inFlight = new Map<RequestId, () => void>();
  transport.onmessage = (message, extra) => {
    const m = message as { id?: RequestId; method?: string; params?: Record<string, unknown> };
    if (m.method === 'tools/call' && m.id !== undefined) {
      const id = m.id;
      const ready = hub();
      const send = (out: JSONRPCMessage) => void transport.send(out, { relatedRequestId: id }).catch(() => undefined);
      const handled = ready?.tryFastCall(
        m.params ?? {},
        (result) => {
          inFlight.delete(id);
          send({ jsonrpc: '2.0', id, result });
        },
        (progress) => send(progress),
        id,
      );
      if (handled) {
        inFlight.set(id, handled.cancel);
        return;
      }
    }
    if (m.method === 'notifications/cancelled') {
      const cancel = inFlight.get((m.params as { requestId?: RequestId } | undefined)?.requestId as RequestId);
      if (cancel) {
        inFlight.delete((m.params as { requestId: RequestId }).requestId);
        return cancel();
      }
    }
    sdk?.(message, extra);
  };
}
