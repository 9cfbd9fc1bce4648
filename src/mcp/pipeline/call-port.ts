import type { CallParams, RequestContext } from './request-context.js';

/**
 * The one way a tools/call enters mcpkit, whoever makes it: an agent's request (the carriers:
 * ./sdk-server.ts, ./wire-calls.ts, the task host), a code run's inner call (./code-run.ts), and a
 * person's call from a terminal, in its own process or the daemon's (./terminal-calls.ts: `mcpkit
 * call`, `mcpkit code run`). The Dispatcher is the port: each call takes its chain (./call-chain.ts)
 * and then the hub's hot path or router, so no front end reaches the router around it.
 */
export interface CallPort {
  /** Runs one call for `caller`: its answer, or a JSON-RPC error (an unknown tool) thrown. */
  call(request: CallParams, caller: RequestContext): Promise<Record<string, unknown>>;
}
