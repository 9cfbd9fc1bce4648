import type { UpstreamConnection, UpstreamState } from './upstream-connection.js';

/** How one upstream connection stands, as /health, the daemon's status and `server list` show it. */
export interface UpstreamStatus {
  name: string;
  state: UpstreamState;
  tools?: number;
  error?: string;
  stderr?: string[];
  reconnect_attempts: number;
  /** The MCP revision the connection speaks, once connected. */
  protocol?: string;
  /** A stdio server run in a box (bubblewrap), with the network or without. */
  sandbox?: 'box' | 'box with network';
  /** How many of its listed tools tool pinning withholds (new, changed or tampered) under serve. */
  withheld?: number;
  /** Where 2025 and 2026 clients each have a connection to the server: how each stands. */
  connections?: { era: 'legacy' | 'modern'; state: UpstreamState; reconnect_attempts: number }[];
}

/** How a connection stands, with what its owner knows of it (the revision it speaks, the tools it listed). */
export function connectionStatus(name: string, c: UpstreamConnection, known: { protocol?: string | undefined; tools?: number | undefined }): UpstreamStatus {
  const out: UpstreamStatus = { name, state: c.state, reconnect_attempts: c.attempts };
  if (known.protocol) out.protocol = known.protocol;
  if (known.tools !== undefined) out.tools = known.tools;
  if (c.lastError) out.error = c.lastError;
  if (c.stderrTail.length) out.stderr = [...c.stderrTail];
  const box = c.options.config.sandbox;
  if (box) out.sandbox = box !== true && box.network ? 'box with network' : 'box';
  return out;
}
