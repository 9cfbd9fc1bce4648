import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Runtime } from '../../app/runtime.js';
import type { AuditedCall, CallObserver } from '../../audit/auditor.js';
import type { ProxyHub } from '../../proxy/hub.js';
import type { ToolAccess } from '../../tool/context.js';
import { Dispatcher } from './dispatcher.js';
import type { Downstream, RequestContext } from './request-context.js';

/** Who a person's call from a terminal is, in the audit log and to conditions (`client`). */
export const TERMINAL_CLIENT = 'terminal';
const TERMINAL: ToolAccess = Object.freeze({ client: TERMINAL_CLIENT });

/** A terminal is asked nothing through MCP: what a server asks reaches it through the hub's relay (call --elicitation). */
const TERMINAL_DOWNSTREAM: Downstream = {
  capabilities: () => undefined,
  client: () => undefined,
  request: () => Promise.reject(new Error('A terminal answers no MCP requests.')),
  notify: () => Promise.resolve(),
};

export interface TerminalCall {
  /** The tool's published name, as the view's catalog has it. */
  name: string;
  arguments: Record<string, unknown>;
  signal?: AbortSignal | undefined;
  /** Told of the call's progress (a terminal draws it: cli/progress-bar.ts). */
  progress?: ((update: { progress: number; total?: number; message?: string }) => void) | undefined;
}

type Progress = NonNullable<TerminalCall['progress']>;
let requests = 0;

/**
 * A person's call from a terminal (`mcpkit call`, in its own process or the daemon's), through the
 * one port every call enters, `Dispatcher.call`: the same chain as an agent's (pins, hooks,
 * conditions, serve.upstream_limits, the audit line when serve.audit_log is set, marked surface
 * `cli` and client `terminal`), minus what only an MCP client has (its rules and limits in
 * serve.clients, a session, a revocable credential).
 */
export async function callFromTerminal(runtime: Runtime, hub: ProxyHub, call: TerminalCall): Promise<CallToolResult> {
  const audit = await terminalAudit(runtime);
  const dispatcher = new Dispatcher(
    {
      hub: () => Promise.resolve(hub),
      runtime,
      hasServers: hub.hasServers,
      perRequest: true,
      access: () => TERMINAL,
      ...(audit ? { observers: { observer: audit.observer } } : {}),
    },
    TERMINAL_DOWNSTREAM,
  );
  try {
    const answer = dispatcher.call(
      { name: call.name, arguments: call.arguments, ...(call.progress ? { _meta: { progressToken: 0 } } : {}) },
      terminalRequest(call),
    );
    return (await answer.finally(() => audit?.recorded)) as CallToolResult;
  } finally {
    await audit?.close();
  }
}

/** The request context of a terminal's call: its progress, however the path sends it, goes to `progress`. */
function terminalRequest(call: TerminalCall): RequestContext {
  const tell = call.progress;
  return {
    id: `terminal-${++requests}`,
    signal: call.signal ?? new AbortController().signal,
    notify: (notification) => {
      if (tell && notification.method === 'notifications/progress') tell(progressOf(notification.params));
      return Promise.resolve();
    },
    ...(tell ? { relay: (message) => relayed(message, tell) } : {}),
  };
}

function relayed(message: unknown, tell: Progress): void {
  const m = message as { method?: string; params?: Record<string, unknown> };
  if (m.method === 'notifications/progress') tell(progressOf(m.params));
}

function progressOf(params: Record<string, unknown> | undefined): Parameters<Progress>[0] {
  const { progress, total, message } = params ?? {};
  return {
    progress: typeof progress === 'number' ? progress : 0,
    ...(typeof total === 'number' ? { total } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}

/**
 * The audit log of serve.audit_log, open for one call: its line is marked as a terminal's, and the
 * log is closed (its line on disk) once the call's line is recorded, which a refusal does only
 * after it is answered.
 */
async function terminalAudit(runtime: Runtime): Promise<{ observer: CallObserver; recorded: Promise<void>; close(): Promise<void> } | undefined> {
  const config = await runtime.config();
  const { auditPath, openAuditFile } = await import('../../audit/audit-file.js');
  const path = auditPath(config.serve, runtime.configLocation.path);
  if (!path) return undefined;
  const auditor = openAuditFile(path, config.serve, runtime.logger);
  let done!: () => void;
  const recorded = new Promise<void>((resolve) => (done = resolve));
  return {
    observer: {
      record(line: AuditedCall) {
        auditor.record({ ...line, surface: 'cli' });
        done();
      },
    },
    recorded,
    close: () => auditor.close(),
  };
}
