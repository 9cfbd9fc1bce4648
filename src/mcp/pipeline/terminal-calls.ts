import { processShared } from '../../core/process-shared.js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CallScope, Runtime } from '../../app/runtime.js';
import type { AuditedCall, Auditor, CallObserver } from '../../audit/auditor.js';
import type { ProxyHub } from '../../proxy/hub.js';
import type { Logger } from '../../core/logger.js';
import { ToolError } from '../../core/errors.js';
import type { OpenedView, ToolAccess, ViewCallPort } from '../../tool/context.js';
import type { CallPort } from './call-port.js';
import { auditedCall } from './call-record.js';
import { Dispatcher } from './dispatcher.js';
import { CLOSE_GRACE_MS, PortCalls } from './port-calls.js';
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

/** How a call its closed port stopped waiting for ends in the audit log (./port-calls.ts). */
const PORT_CLOSED = Object.freeze({ code: 'CANCELLED', message: 'The use of the view ended; the call was cancelled and did not end in time.' });

/** The tool a code run's calls are audited `via`, as serve's run tool is named on theirs. */
const CODE_RUN_TOOL = 'code_run';

export interface TerminalCall {
  /** The tool's published name, as the view's catalog has it. */
  name: string;
  arguments: Record<string, unknown>;
  signal?: AbortSignal | undefined;
  /** Told of the call's progress (a terminal draws it: cli/progress-bar.ts). */
  progress?: ((update: { progress: number; total?: number; message?: string }) => void) | undefined;
  /** A code run's call: the run, and the tool it went through (the audit log's `parent` and `via`). */
  parent?: { request: string; via: string } | undefined;
}

/** The terminal's side of the port, open while a command uses a view: its calls, then its audit log closed. */
export interface TerminalPort {
  call(call: TerminalCall): Promise<CallToolResult>;
  close(): Promise<void>;
}

type Progress = NonNullable<TerminalCall['progress']>;
/** Where the command runs, when that is not the runtime's own place (the daemon works for it). */
type Caller = Pick<CallScope, 'cwd' | 'env'>;
// One count for the process, whichever copy of this module numbers (core/process-shared.ts): an id must not repeat.
const requests = processShared('terminalRequests', () => ({ count: 0 }));

/**
 * A person's calls from a terminal (`mcpkit call`, `mcpkit code run`, in its own process or the
 * daemon's), each through the one port every call enters, `Dispatcher.call` (./call-port.ts): the
 * same chain as an agent's (pins, hooks, conditions, serve.upstream_limits, the audit line when
 * serve.audit_log is set, marked surface `cli` and client `terminal`), minus what only an MCP
 * client has (its rules and limits in serve.clients, a session, a revocable credential). The audit
 * log is opened by the first call, so a use of the view that calls nothing leaves no file.
 */
export function terminalPort(runtime: Runtime, hub: ProxyHub, caller?: Caller): TerminalPort {
  let opened: Promise<Auditor | undefined> | undefined;
  let openWait: Promise<Auditor | undefined | typeof LATE> | undefined;
  /** The log's opening, waited for at most OPEN_WAIT_MS from the first wait: abandoned calls' lines and the close share the one bound. */
  const openedInTime = (opening: Promise<Auditor | undefined>) =>
    (openWait ??= within(
      opening.catch(() => undefined),
      OPEN_WAIT_MS,
    ));
  const calls = new PortCalls();
  let called = 0;
  return {
    call: (call) =>
      calls.run(call.name, call.signal, async (signal, onAbandon) => {
        const started = performance.now();
        called++;
        const request = terminalRequest(call, signal);
        const opening = (opened ??= openTerminalAudit(runtime));
        const line = lineOf(
          opening,
          () => openedInTime(opening),
          () => abandonedCall(call, request, hub, started),
          runtime.logger,
        );
        // Before the log is open: a call the port gives up on while it opens still gets its line.
        onAbandon(line.abandon);
        const auditor = await opening;
        // Its line is written (or being written) as cancelled: never run now, with the log closed or closing.
        if (line.abandoned) throw abandonedWhileOpening(call.name);
        const answer = terminalDispatcher(runtime, hub, auditor ? line.observer : undefined, caller).call(
          { name: call.name, arguments: call.arguments, ...(call.progress ? { _meta: { progressToken: 0 } } : {}) },
          request,
        );
        // A refusal's line is recorded only after it is answered: the call ends once its line is.
        return (await answer.finally(() => (auditor ? line.recorded : undefined))) as CallToolResult;
      }),
    // The calls still running are cancelled and their lines written first. An audit log that could
    // not be opened refused the calls already: closing says it no more. One still opening (its
    // config still being read: a FIFO, a hung network disk) is not waited for past the bound.
    close: async () => {
      await calls.close();
      if (!opened) return;
      const auditor = await openedInTime(opened);
      if (auditor !== LATE) return auditor?.close();
      runtime.logger.warn(
        `the audit log did not open within ${OPEN_WAIT_MS / 1000} s of the end of the use of the view (its config was still being read): the audit lines of its ${called} call(s) were not written, and it is no longer waited for`,
      );
      // Closed once it opens at last, so that it holds no file open after the use.
      void opened.then(
        (late) => late?.close(),
        () => undefined,
      );
    },
  };
}

/** One call from a terminal, with its own port: `mcpkit call`. */
export async function callFromTerminal(runtime: Runtime, hub: ProxyHub, call: TerminalCall): Promise<CallToolResult> {
  const port = terminalPort(runtime, hub);
  try {
    return await port.call(call);
  } finally {
    await port.close();
  }
}

/**
 * The calls of one `mcpkit code run` (tools/code/run.ts, through OpenedView.call): each a
 * terminal's call through the port, audited with the run as its parent, `via` code_run. A name no
 * tool of the view has is `found: false`, for the run to name the tools it has.
 */
export function codeRunCalls(runtime: Runtime, hub: ProxyHub, caller?: Caller): ViewCallPort {
  const port = terminalPort(runtime, hub, caller);
  const parent = { request: `terminal-run-${++requests.count}`, via: CODE_RUN_TOOL };
  const call: OpenedView['call'] = async (name, args, caller) => {
    try {
      return { found: true, result: await port.call({ name, arguments: args ?? {}, signal: caller.signal, parent }) };
    } catch (error) {
      const data = (error as { data?: { code?: unknown; similar?: unknown } }).data;
      if (data?.code !== 'NOT_FOUND') throw error;
      return { found: false, similar: Array.isArray(data.similar) ? (data.similar as string[]) : [] };
    }
  };
  return { call, close: () => port.close() };
}

/** The port as a terminal's call enters it: the client `terminal`, one request, no session. */
function terminalDispatcher(runtime: Runtime, hub: ProxyHub, observer: CallObserver | undefined, caller: Caller | undefined): CallPort {
  return new Dispatcher(
    {
      hub: () => Promise.resolve(hub),
      runtime,
      hasServers: hub.hasServers,
      perRequest: true,
      access: () => TERMINAL,
      ...(observer ? { observers: { observer } } : {}),
      ...(caller ? { caller } : {}),
    },
    TERMINAL_DOWNSTREAM,
  );
}

/** The request context of a terminal's call: its progress, however the path sends it, goes to `progress`. */
function terminalRequest(call: TerminalCall, signal: AbortSignal): RequestContext & { id: string } {
  const tell = call.progress;
  return {
    id: `terminal-${++requests.count}`,
    signal,
    notify: (notification) => {
      if (tell && notification.method === 'notifications/progress') tell(progressOf(notification.params));
      return Promise.resolve();
    },
    ...(tell ? { relay: (message) => relayed(message, tell) } : {}),
    ...(call.parent ? { parent: call.parent } : {}),
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

/** The audit log of serve.audit_log, when it is set: its lines are marked as a terminal's. */
async function openTerminalAudit(runtime: Runtime): Promise<Auditor | undefined> {
  const config = await runtime.config();
  const { auditPath, openAuditFile } = await import('../../audit/audit-file.js');
  const path = auditPath(config.serve, runtime.configLocation.path);
  return path ? openAuditFile(path, config.serve, runtime.logger) : undefined;
}

/**
 * What hears of one call: its line, marked surface `cli`, and when it is recorded. `abandon`
 * writes the line of a call that did not end in time after its port closed (`abandoned`), once
 * the audit log is open (`openedInTime`: at most OPEN_WAIT_MS more; a log that is not open by then
 * gets no line, and the logger says so); a line the call itself brings later is not written twice.
 */
function lineOf(opening: Promise<Auditor | undefined>, openedInTime: () => Promise<unknown>, abandoned: () => AuditedCall, logger: Logger): CallLine {
  let auditor: Auditor | undefined;
  let done = false;
  let given = false;
  let resolve!: () => void;
  const recorded = new Promise<void>((r) => (resolve = r));
  const record = (line: AuditedCall) => {
    if (done) return;
    done = true;
    auditor?.record({ ...line, surface: 'cli' });
    resolve();
  };
  const open = opening.then(
    (opened) => void (auditor = opened),
    () => undefined, // the call itself fails on it (FILE_ACCESS)
  );
  const abandon = async () => {
    given = true;
    if ((await openedInTime()) === LATE) logger.warn(`the audit line of ${abandoned().name} was not written: its audit log did not open in time`);
    else await open; // settled: `auditor` is set
    record(abandoned());
  };
  return {
    observer: { record },
    recorded,
    abandon,
    get abandoned() {
      return given;
    },
  };
}

interface CallLine {
  observer: CallObserver;
  recorded: Promise<void>;
  abandon: () => Promise<void>;
  /** The port gave up on the call (its line is written, or could not be). */
  readonly abandoned: boolean;
}

/** How long an abandoned call's line waits for the audit log still opening (its config still loading). */
const OPEN_WAIT_MS = CLOSE_GRACE_MS;
const LATE = Symbol('late');

/** The promise's outcome, or LATE when it takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A call the port gave up on while its audit log was opening: written as cancelled, never run. */
function abandonedWhileOpening(name: string): ToolError {
  return new ToolError('UNAVAILABLE', `${name} was not called: the use of the view ended while the audit log was opening.`, {
    hint: 'Await every tool call before the script returns.',
  });
}

/** The line of a call its closed port stopped waiting for: cancelled, with what is known of it before its answer. */
function abandonedCall(call: TerminalCall, request: { id: string }, hub: ProxyHub, started: number): AuditedCall {
  return auditedCall({
    method: 'tools/call',
    name: call.name,
    session: undefined,
    request: request.id,
    access: TERMINAL,
    client: undefined,
    view: hub.view.name,
    answered: undefined,
    ...(call.parent ? { parent: call.parent } : {}),
    started,
    args: call.arguments,
    ended: { error: PORT_CLOSED },
  });
}
