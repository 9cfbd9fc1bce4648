import { CLIENT_CAPABILITIES_META_KEY, type Client, type ClientOptions, type PriorDiscovery } from '@modelcontextprotocol/client';
import type { ProtocolChoice } from '../../config/schema/defaults.js';

/**
 * The parts of a 2026-07-28 request that belong to the client, not to mcpkit: the envelope keys a
 * server decides by (the client's capabilities, log level, trace context), the parameters it
 * mirrored into headers, and a retry's answers to an input_required result with the server's
 * opaque state, passed back byte for byte.
 */
export interface ModernRequest {
  readonly meta: Readonly<Record<string, unknown>>;
  /** The client's `Mcp-Param-*` headers (SEP-2243): checked by serve, and made again from the arguments sent where the server's tool definition is known. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly inputResponses?: unknown;
  readonly requestState?: string;
  /** The request came over HTTP: the client's roots reach only servers whose entry says `roots: forward`. */
  readonly remote?: boolean;
  /**
   * The request's signal is the whole call's, not only this round's (a task's, which tasks/cancel
   * aborts): a call bridged to a 2025 server is stopped by it even while it waits for the client's answers.
   */
  readonly lasting?: boolean;
}

/** A stdio server that does not answer the server/discover probe is taken for a 2025 one after this long. */
export const STDIO_PROBE_MS = 5000;

/**
 * The SDK's version negotiation for `mcp_servers.NAME.protocol`: `auto` probes with server/discover
 * and falls back to `initialize` against a 2025 server; a revision pins it (the SDK's legacy mode is
 * the 2025 handshake byte for byte, and its pin never falls back). On stdio a silent probe means a
 * 2025 server, so it is bounded more tightly than a call; over HTTP silence is an outage and the
 * server's own timeout applies.
 */
export function versionNegotiation(choice: ProtocolChoice, stdio: boolean, timeoutMs: number): NonNullable<ClientOptions['versionNegotiation']> {
  switch (choice) {
    case '2025-11-25':
      return { mode: 'legacy' };
    case '2026-07-28':
      return { mode: { pin: '2026-07-28' } };
    case 'auto':
      return { mode: 'auto', probe: { timeoutMs: stdio ? Math.min(timeoutMs, STDIO_PROBE_MS) : timeoutMs } };
  }
}

/** The era of the clients a connection serves: `serve` keeps one set of connections per era. */
export type ClientEra = 'legacy' | 'modern';

/**
 * How to connect to a server for clients of one era. A revision in the config is kept. Otherwise a
 * server is spoken to in its clients' era where it can be: 2025 clients get the 2025 handshake
 * first (what they got before mcpkit spoke 2026-07-28, hot path included), falling back to
 * 2026-07-28 only for a server that refuses it; 2026 clients probe with server/discover. Commands
 * without a client probe a remote server (one request); a stdio server is started once, with the
 * 2025 handshake first, since the SDK probes stdio in a second, throw-away process and a terminal
 * command would pay that start on every run (the SDK's advice for spawn-per-run tools).
 */
export function eraPlan(choice: ProtocolChoice, clients: ClientEra | undefined, stdio: boolean): ProtocolChoice | 'legacy-first' {
  if (choice !== 'auto') return choice;
  return clients === 'legacy' || (clients === undefined && stdio) ? 'legacy-first' : 'auto';
}

/** The server refused a 2025 handshake because it speaks only later revisions (-32022, Unsupported protocol version). */
export function refusesLegacy(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; data?: { code?: unknown } } | undefined;
  if (e?.code === UNSUPPORTED_PROTOCOL_VERSION || e?.data?.code === UNSUPPORTED_PROTOCOL_VERSION) return true;
  return typeof e?.message === 'string' && /unsupported protocol version/i.test(e.message);
}

const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * What a connection learnt about the server's era, for the next connect to the same server to skip
 * the probe (the SDK's gateway recipe). Kept for the life of the process only: a 2025 verdict that
 * outlived an upgrade of the server would hide the upgrade forever.
 */
export function verdictOf(client: Client): PriorDiscovery | undefined {
  const era = client.getProtocolEra();
  if (era === undefined) return undefined;
  const discover = client.getDiscoverResult();
  return era === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' };
}

/**
 * The request params a 2026-07-28 upstream gets for the client's request: the caller's `_meta` keys
 * win over the SDK's. A remote client's roots are not passed on unless the server's entry says
 * `roots: forward` (proxy/upstream/offered-capabilities.ts forwardsRoots): its declared capability is left
 * out, and so is any answer that carries roots. Pure.
 */
export function modernParams(
  modern: ModernRequest,
  server: { roots?: 'forward' } = {},
): { _meta: Record<string, unknown>; inputResponses?: unknown; requestState?: string } {
  const keepRoots = modern.remote !== true || server.roots === 'forward';
  const meta = { ...modern.meta };
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
  if (!keepRoots && capabilities && 'roots' in capabilities) {
    const { roots: _roots, ...rest } = capabilities;
    meta[CLIENT_CAPABILITIES_META_KEY] = rest;
  }
  const answers = keepRoots ? modern.inputResponses : withoutRoots(modern.inputResponses);
  return {
    _meta: meta,
    ...(answers !== undefined ? { inputResponses: answers } : {}),
    ...(modern.requestState !== undefined ? { requestState: modern.requestState } : {}),
  };
}

/** Input responses without those that answer roots/list (an object with a `roots` list). Pure. */
function withoutRoots(responses: unknown): unknown {
  if (!responses || typeof responses !== 'object' || Array.isArray(responses)) return responses;
  const entries = Object.entries(responses as Record<string, unknown>).filter(([, answer]) => !answersRoots(answer));
  return Object.fromEntries(entries);
}

function answersRoots(answer: unknown): boolean {
  if (!answer || typeof answer !== 'object') return false;
  const a = answer as { roots?: unknown; result?: { roots?: unknown } };
  return Array.isArray(a.roots) || Array.isArray(a.result?.roots);
}

/** Whether a 2026-07-28 client declared (in its envelope) the capability a server's request needs. */
export function clientAccepts(modern: ModernRequest, method: 'sampling/createMessage' | 'elicitation/create' | 'roots/list'): boolean {
  const capabilities = modern.meta[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
  const needed = method === 'sampling/createMessage' ? 'sampling' : method === 'elicitation/create' ? 'elicitation' : 'roots';
  return capabilities?.[needed] !== undefined && capabilities[needed] !== null;
}
