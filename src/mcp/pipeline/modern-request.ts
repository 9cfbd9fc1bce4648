import { BAGGAGE_META_KEY, CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, TRACEPARENT_META_KEY, TRACESTATE_META_KEY } from '@modelcontextprotocol/server';
import type { ModernRequest } from '../../proxy/eras/era.js';

// The front end's half of a 2026-07-28 request (proxy/eras/era.ts has the upstream half): here, not there,
// so that answering a client never loads the SDK's client package.

/** SEP-2243: a tool's `x-mcp-header` parameters, mirrored by the client into `Mcp-Param-{Name}` headers. */
const PARAM_HEADER_PREFIX = 'mcp-param-';

/** Envelope keys that describe the client or its trace, passed on so a server decides by the real client. */
const CLIENT_ENVELOPE_KEYS = [CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, TRACEPARENT_META_KEY, TRACESTATE_META_KEY, BAGGAGE_META_KEY];

/**
 * The client's own parts of a 2026-07-28 request (undefined for a 2025 one): its envelope keys
 * mcpkit passes on (not the version or client info, which are mcpkit's on the upstream side), and
 * a retry's input responses and request state.
 */
export function modernRequestOf(
  envelope: Readonly<Record<string, unknown>> | undefined,
  params: { inputResponses?: unknown; requestState?: unknown },
  headers?: Iterable<[string, string]>,
  remote = headers !== undefined,
): ModernRequest | undefined {
  if (!envelope) return undefined;
  const meta = Object.fromEntries(CLIENT_ENVELOPE_KEYS.filter((key) => envelope[key] !== undefined).map((key) => [key, envelope[key]]));
  // A client that names no capabilities has none: the SDK must not put mcpkit's own in their place.
  meta[CLIENT_CAPABILITIES_META_KEY] ??= {};
  const mirrored = [...(headers ?? [])].filter(([name]) => name.toLowerCase().startsWith(PARAM_HEADER_PREFIX));
  return {
    meta,
    ...(mirrored.length ? { headers: Object.fromEntries(mirrored) } : {}),
    ...(params.inputResponses !== undefined ? { inputResponses: params.inputResponses } : {}),
    ...(typeof params.requestState === 'string' ? { requestState: params.requestState } : {}),
    ...(remote ? { remote: true } : {}),
  };
}
