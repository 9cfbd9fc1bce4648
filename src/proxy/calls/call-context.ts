import type { CallToolResult } from '@modelcontextprotocol/server';
import type { AnyTool } from '../../tool/define.js';
import type { ToolAccess } from '../../tool/tool-access.js';
import type { UpstreamCall } from '../upstream/send-call.js';

/**
 * What one call brings into the proxy, and all the proxy reads of its caller: who calls, how far a
 * name may be looked up, and what goes on to the server (the client's cancel, where progress goes,
 * the client's request it serves, a 2026-07-28 request's parts, the trace). The front end that
 * takes the call builds it (mcp/pipeline/proxy-call.ts); mcpkit's own tools need their whole
 * context, which stays with that front end and is reached through `callLocal`.
 */
export interface ProxyCallContext extends Pick<UpstreamCall, 'signal' | 'progress' | 'related' | 'modern' | 'trace'> {
  /** Who calls and what they may call; absent: anyone (stdio, a terminal). */
  readonly access?: ToolAccess | undefined;
  /**
   * How far the name may be looked up: `owner` starts only the server an earlier listing names (a
   * terminal's call, ViewCatalog.entryForCall); `listed` looks in the catalog, as an agent's call does.
   */
  readonly reach: 'listed' | 'owner';
  /** Runs one of mcpkit's own tools for this caller; `readOnly`: under the read-only policy, whatever the process's. */
  callLocal(tool: AnyTool, args: Record<string, unknown>, how: { readOnly: boolean }): Promise<CallToolResult>;
}
