import { ToolError } from '../../core/errors.js';
import { REQUEST_TIMEOUT } from './progress-timeout.js';

/** An upstream as its errors describe it. */
export interface FailureSubject {
  name: string;
  state: string;
  lastError?: string;
  stderrTail: readonly string[];
  /** The config entry was set aside for these problems. */
  problems?: readonly string[];
  /** What to do about them, when it is not fixing the config entry. */
  problemsHint?: string;
  /** False for a one-off connection (a terminal command): nothing retries it in the background. */
  reconnects: boolean;
  /** How the server is reached, in the user's terms: its command line, or its URL. */
  reached: string;
  /** Why it was closed, when not because mcpkit is ending (a config reload removed or changed it). */
  closedBecause?: string;
}

/** What to do when the server cannot be reached, for one that is retried or not. */
function reachHint(s: FailureSubject): string {
  if (s.reconnects) return `mcpkit reconnects with backoff; check the server on its own with: mcpkit server test ${s.name}`;
  return `Check that it works on its own: ${s.reached}`;
}

/** TIMEOUT for a server that did not complete the MCP handshake within its timeout_ms. */
export function connectTimeoutError(s: FailureSubject, over: string, ms: number): ToolError {
  return new ToolError('TIMEOUT', `Server "${s.name}" did not answer the MCP handshake over ${over} within ${ms} ms.`, {
    details: { server: s.name, timeout_ms: ms, stderr: s.stderrTail.filter((l) => l.trim() !== '').slice(-5) },
    hint: `Raise mcp_servers.${s.name}.timeout_ms if it starts slowly. ${reachHint(s)}`,
  });
}

/** UNAVAILABLE for a server that does not speak the revision its `protocol` pins. */
export function eraMismatchError(s: FailureSubject, pinned: string, message: string): ToolError {
  return new ToolError('UNAVAILABLE', `Server "${s.name}" does not speak MCP ${pinned}, which mcp_servers.${s.name}.protocol pins: ${message}`, {
    details: { server: s.name, state: s.state, protocol: pinned },
    hint: `Set mcp_servers.${s.name}.protocol to auto (mcpkit then speaks what the server offers), or pin the revision it speaks.`,
  });
}

/** UNAVAILABLE, with the server's last stderr lines and what to do. */
export function unavailableError(s: FailureSubject): ToolError {
  const tail = s.stderrTail.slice(-5).filter((l) => l.trim() !== '');
  const last = tail.length ? `\nLast stderr lines of ${s.name}:\n${tail.map((l) => `  ${l}`).join('\n')}` : '';
  if (s.state === 'closed' && s.closedBecause) {
    return new ToolError('UNAVAILABLE', `Server "${s.name}" is no longer served: ${s.closedBecause}.`, {
      details: { server: s.name, state: s.state },
      hint: 'Call tools/list for what is served now.',
    });
  }
  return new ToolError('UNAVAILABLE', `Server "${s.name}" is unavailable${s.lastError ? `: ${s.lastError}` : ''}.${last}`, {
    details: { server: s.name, state: s.state, stderr: tail },
    hint:
      s.state === 'closed'
        ? 'mcpkit is shutting down.'
        : s.problems
          ? (s.problemsHint ?? `Fix mcp_servers.${s.name} in the config ("mcpkit config validate" lists the problems); the other servers work meanwhile.`)
          : reachHint(s),
  });
}

/**
 * What a failed request to a connected server becomes, whichever path it took (the SDK client's,
 * or the forwarded hot path): it did not answer in time (TIMEOUT), or it answered with a JSON-RPC
 * error (UPSTREAM_ERROR, in the server's own words).
 */
export function requestFailure(
  server: string,
  what: string,
  error: { message: string; code?: number },
  timeoutMs: number,
  /** A tool call's timeout that progress restarts: `idle`, no progress for timeoutMs; `total`, max_total_ms reached. */
  which?: 'idle' | 'total',
): ToolError {
  if (which === 'total') {
    return new ToolError('TIMEOUT', `Server "${server}" ran ${what} past its ceiling, mcp_servers.${server}.max_total_ms, however much progress it reported.`, {
      details: { server, tool: what },
      hint: `Raise mcp_servers.${server}.max_total_ms if the tool runs longer on purpose.`,
    });
  }
  if (error.code === REQUEST_TIMEOUT || /timed out/i.test(error.message)) {
    const progress = which === 'idle' ? ' (and reported no progress in that time)' : '';
    return new ToolError('TIMEOUT', `Server "${server}" did not answer ${what} within ${timeoutMs} ms${progress}.`, {
      details: { server, tool: what },
      hint: `Raise mcp_servers.${server}.timeout_ms if the tool is slow; progress it reports keeps a call alive.`,
    });
  }
  // The SDK prefixes "MCP error N: " on each side of the wire; the server's own words are what matter.
  const words = error.message.replace(/^(MCP error -?\d+: )+/, '');
  return new ToolError('UPSTREAM_ERROR', `Server "${server}" failed ${what}: ${words}`, {
    details: { server, tool: what, ...(error.code !== undefined ? { upstream_code: error.code } : {}) },
  });
}

/** UPSTREAM_ERROR for a result that is not a CallToolResult (./call-result.ts): the client never gets it. */
export function malformedResult(server: string, tool: string, why: string): ToolError {
  return new ToolError('UPSTREAM_ERROR', `Server "${server}" answered ${tool} with a malformed result: ${why}.`, {
    details: { server, tool },
    hint: `The server is broken or not an MCP server; check it with: mcpkit server test ${server}`,
  });
}
