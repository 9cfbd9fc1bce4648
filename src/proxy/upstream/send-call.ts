import type { CallToolResult, JSONRPCMessage, RequestId, Tool } from '@modelcontextprotocol/server';
import { ProtocolError, type Client } from '@modelcontextprotocol/client';
import * as z from 'zod';
import { clientAccepts, type ModernRequest } from '../eras/era.js';
import { UnknownRequestState, type InputBridge, type LegCancel } from '../eras/input-bridge.js';
import { paramHeaderDeclarations, paramHeadersFor } from '../eras/param-headers.js';

/** Results of tools/call passed on as the server sent them (./call-result.ts checks their shape). */
const PassThroughResult = z.looseObject({});

/** A request's trace (audit/tracing.ts), as the proxy sees it: one span per upstream request. */
export interface UpstreamTrace {
  child(method: string, name: string, server: string): { traceparent: string; end(failure?: string): void };
}

/** One tools/call for the server, on the ordinary path (Upstream.call). */
export interface UpstreamCall {
  /** The server's own name for the tool. */
  name: string;
  args?: Record<string, unknown> | undefined;
  /** The client's cancellation. */
  signal?: AbortSignal | undefined;
  /** Where the server's progress goes, when the client asked for it. */
  progress?: ((progress: { progress: number; total?: number; message?: string }) => void) | undefined;
  /** The client's request this call serves (what the server asks meanwhile goes to it). */
  related?: RequestId | undefined;
  /** A 2026-07-28 request's envelope and answers, passed on. */
  modern?: ModernRequest | undefined;
  /** Makes the span of this upstream request (when serve traces). */
  trace?: UpstreamTrace | undefined;
}

/** How a hot-path call is forwarded (Upstream.forward): where its progress goes, the client request it serves, its trace. */
export interface ForwardHow {
  progress?: ((message: JSONRPCMessage) => void) | undefined;
  related?: RequestId | undefined;
  trace?: UpstreamTrace | undefined;
}

export interface CallParams {
  [key: string]: unknown;
  name: string;
  arguments: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface CallOptions {
  timeout: number;
  signal?: AbortSignal;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  allowInputRequired?: boolean;
  /** Told when the server's call settles, which for a bridged call is after the legs that returned input_required. */
  settled?: () => void;
  /** A bridged leg's own signal (it outlives the request, so not the request's): its timeout that progress keeps alive. */
  legSignal?: AbortSignal;
}

/**
 * Sends a tools/call the way the connection's era and the client's take it: a 2026 client's call
 * to a 2025 server through the input bridge; a 2026 server's with the Mcp-Param-* headers of the
 * arguments sent; a 2025 server's as the SDK client sends it.
 */
export async function sendToolCall(
  client: Client,
  params: CallParams,
  options: CallOptions,
  how: {
    modern: ModernRequest | undefined;
    tool: Tool | undefined;
    bridge: InputBridge<CallToolResult>;
    /** The client's own cancel (its request's signal, or its task's): a bridged call follows it on every leg. */
    cancelled?: AbortSignal | undefined;
  },
): Promise<unknown> {
  const { modern, tool } = how;
  const era = client.getProtocolEra();
  const { settled: _settled, legSignal, ...sent } = options;
  options = sent;
  if (modern && era === 'legacy') {
    const cancel = { signal: how.cancelled, lasting: modern.lasting };
    return bridged(client, params, { ...options, ...(legSignal ? { legSignal } : {}) }, { modern, bridge: how.bridge, cancel }, _settled);
  }
  if (era === 'modern' && !modern?.headers) {
    // The SDK mirrors the tool's x-mcp-header parameters into Mcp-Param-* headers (SEP-2243),
    // which a 2026 server requires; its definition without outputSchema, so that the result
    // is passed on as the server sent it, not checked here.
    return client.callTool(params, { ...options, ...(tool ? { toolDefinition: { ...tool, outputSchema: undefined } } : {}) });
  }
  // A 2026 client's call goes on with the Mcp-Param-* headers of the arguments sent: its own were
  // checked against the same definition (mcp/http/modern-http.ts), and a pre_call hook may have
  // changed an argument since.
  return client.request({ method: 'tools/call', params }, PassThroughResult, {
    ...options,
    ...(modern?.headers && era === 'modern' ? { headers: paramHeadersOf(tool, params.arguments, modern.headers) } : {}),
  });
}

/**
 * A 2026-07-28 client's call to a 2025 server (./input-bridge.ts): what the server asks during
 * the call comes back as input_required, and the client's retry takes the answer to it.
 */
async function bridged(
  client: Client,
  params: CallParams,
  options: CallOptions,
  { modern, bridge, cancel }: { modern: ModernRequest; bridge: InputBridge<CallToolResult>; cancel: LegCancel },
  settled: (() => void) | undefined,
): Promise<CallToolResult> {
  // Not the first request's signal: its exchange ends with the first input_required, the call does
  // not. The call's own silence (legSignal) ends it, and so does the client's cancel on any leg (stop).
  const started = (stop: AbortSignal) => {
    const { legSignal, ...leg } = options;
    const signal = legSignal ? AbortSignal.any([legSignal, stop]) : stop;
    const call = client.request({ method: 'tools/call', params }, PassThroughResult, { ...leg, signal }) as Promise<CallToolResult>;
    if (settled) void call.then(settled, settled);
    return call;
  };
  const leg =
    modern.requestState !== undefined && bridge.holds(modern.requestState)
      ? bridge.resume(modern.requestState, modern.inputResponses, cancel)
      : modern.requestState !== undefined
        ? Promise.reject(new UnknownRequestState())
        : bridge.start(started, (method) => clientAccepts(modern, method), cancel);
  try {
    return (await leg) as CallToolResult;
  } catch (error) {
    if (error instanceof UnknownRequestState) throw new ProtocolError(error.code, error.message);
    throw error;
  }
}

/**
 * The Mcp-Param-* headers of a call with `args`, made from the server's definition of the tool;
 * the client's as they came when there is none (not listed, or its annotations invalid).
 */
function paramHeadersOf(tool: Tool | undefined, args: Record<string, unknown>, sent: Readonly<Record<string, string>>): Record<string, string> {
  const declarations = tool ? paramHeaderDeclarations(tool.inputSchema) : undefined;
  return declarations ? paramHeadersFor(declarations, args) : { ...sent };
}
