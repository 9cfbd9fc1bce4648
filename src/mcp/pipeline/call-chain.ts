import type { CallToolResult, RequestId } from '@modelcontextprotocol/server';
import type { CallObserver } from '../../audit/auditor.js';
import type { Tracing } from '../../audit/tracing.js';
import { rateLimited, type Admission } from '../../core/limits.js';
import { ToolError } from '../../core/errors.js';
import { nestingRefusal } from '../../core/nesting.js';
import type { InFlightScope } from './calls-in-flight.js';
import { toErrorResult } from '../../tool/mcp-shape.js';
import type { ToolAccess } from '../../tool/context.js';
import type { UpstreamTrace } from '../../proxy/upstream/send-call.js';
import { auditedCall, STDIO_IDENTITY, type Answered, type CallFacts } from './call-record.js';
import { Revocation } from './revocation.js';

/**
 * The one chain every downstream request goes through, begun by the dispatcher (dispatcher.ts)
 * whichever way the call then runs (the hub's hot path, or its router). Its steps, in order:
 *
 * - identity: who calls and what they may call (serve.clients), read once per request;
 * - audit: the request's line in the audit log and the metrics (call-record.ts makes it);
 * - trace: a server span under the client's trace context, parent of each upstream request's span;
 * - shape: arguments and _meta nested past core/nesting.ts's limit are INVALID_INPUT, unwalked;
 * - limits: the client's rate and max_concurrent, which refuse a tools/call before it runs;
 * - progress: the client's progress token, and that every progress notification is sent before
 *   the result.
 *
 * A step begins in order and ends in the reverse order; a refusal ends the steps begun so far,
 * so a refused call is still audited and traced. Begin and end, rather than a wrapped promise,
 * because the hot path answers from a callback.
 */

/** What the chain's steps use, from the serve they run in. */
export interface CallLinks {
  /** Who calls and what they may call (serve.clients), read per request so a reload applies; absent: stdio, anyone. */
  access?: (() => ToolAccess | undefined) | undefined;
  observer?: CallObserver | undefined;
  tracing?: Tracing | undefined;
  /** Where the request's calls are registered, so that a revoked credential's are cancelled at once (./calls-in-flight.ts). */
  inFlight?: InFlightScope | undefined;
}

/**
 * What hears of serve's calls: the audit log and the metrics (through one queue), and tracing.
 * Made by serve when it starts (mcp/run-serve.ts) and handed to its transports; a front end
 * without them (filter run, the tests' harness) has none.
 */
export interface ServeObservers {
  readonly observer?: CallObserver | undefined;
  readonly tracing?: Tracing | undefined;
}

/** A serve's links for one client: its observers, read when a request comes in (the metrics may start after it). */
export function linksOf(serve: ServeObservers | undefined, access?: () => ToolAccess | undefined, inFlight?: InFlightScope): CallLinks {
  return {
    access,
    inFlight,
    get observer() {
      return serve?.observer;
    },
    get tracing() {
      return serve?.tracing;
    },
  };
}

/** A request as it comes in, on either path. */
export interface CallStart {
  method: CallFacts['method'];
  /** The name the client asked for (a tool, a prompt, a resource's URI). */
  name: string;
  args: unknown;
  /** The request's `_meta`, passed on as it came (the hot path forwards it): held to the same depth as the arguments. */
  meta?: unknown;
  request: RequestId | undefined;
  session: string | undefined;
  /** Read when the request ends (a 2025 session's client is known by then). */
  client: () => { name?: unknown; version?: unknown } | undefined;
  view: () => string | undefined;
  /** Where the client's trace context is: the request's `_meta`, or a 2026-07-28 request's envelope. */
  traceContext?: Record<string, unknown> | undefined;
  /** The token the client asked progress under (`_meta.progressToken`). */
  progressToken?: unknown;
  /** A code run's call: the run's request id, and the run tool it went through. */
  parent?: { request: string | number; via: string } | undefined;
  /** Who calls, when the path already read it to decide how to answer (the hot path): not read again. */
  access?: ToolAccess | undefined;
  /** How a notification for this request reaches the client; absent where progress is relayed as the upstream sent it. */
  notify?: ((notification: { method: 'notifications/progress'; params: Record<string, unknown> }) => Promise<void>) | undefined;
}

type ProgressUpdate = { progress: number; total?: number; message?: string };

/** A request under way. */
export interface BegunCall {
  readonly access: ToolAccess | undefined;
  /** Set when the client's limits refuse the call: the result to answer with; it is not run. */
  readonly refused?: CallToolResult;
  /**
   * Limits kept in the shared store answer later: settles with the refusal to answer with (not
   * run), or undefined once the call holds its place. Absent: decided already (`refused`).
   */
  readonly admitted?: Promise<CallToolResult | undefined>;
  /** Makes the span of each upstream request (when serve traces). */
  readonly trace?: UpstreamTrace;
  /** Sends progress to the client, when it asked for it and the path sends it itself. */
  readonly progress?: (update: ProgressUpdate) => void;
  /** Revoked when the caller's credential is taken away while the call runs: the path cancels the call. */
  readonly revocation?: Revocation;
  /** Settles when every progress notification sent so far is out: the result goes after them. */
  progressSent(): Promise<void>;
  /** Ends the steps, last begun first. */
  end(ended: CallFacts['ended'], answered?: Answered): void;
}

type Ended = (ended: CallFacts['ended'], answered: Answered | undefined) => void;
interface Draft {
  access: ToolAccess | undefined;
  refused?: CallToolResult;
  admitted?: Promise<CallToolResult | undefined>;
  trace?: UpstreamTrace;
  progress?: (update: ProgressUpdate) => void;
  revocation?: Revocation;
  sending: Promise<void>[];
}
/** A step: it may add to the draft, refuse the call (draft.refused), and return what to do at the end. */
type Step = (links: CallLinks, call: CallStart, draft: Draft) => Ended | void;

const identity: Step = (links, call, draft) => {
  draft.access = 'access' in call ? call.access : links.access?.();
};

const audit: Step = (links, call, draft) => {
  const observer = links.observer;
  if (!observer) return;
  const started = performance.now();
  return (ended, answered) =>
    observer.record(
      auditedCall({
        method: call.method,
        name: call.name,
        session: call.session,
        request: call.request,
        access: draft.access,
        client: call.client(),
        view: call.view(),
        answered,
        ...(call.parent ? { parent: call.parent } : {}),
        started,
        args: call.args,
        ended,
      }),
    );
};

const traced: Step = (links, call, draft) => {
  // Only tools/call is traced (its upstream request is the span's child).
  if (!links.tracing || call.method !== 'tools/call') return;
  const span = links.tracing.begin(call.method, call.name, call.traceContext, {
    'gen_ai.tool.name': call.name,
    'mcp.session.id': call.session,
    'jsonrpc.request.id': call.request === undefined ? undefined : String(call.request),
    'mcpkit.client': draft.access?.client ?? STDIO_IDENTITY,
  });
  draft.trace = { child: span.upstream };
  return (ended) => span.end(ended);
};

/**
 * Arguments (or _meta) nested past MAX_NESTING are refused before anything walks them: every
 * walker after this one recurses (core/nesting.ts). Audited and traced, and before the limits, so
 * a refused call spends no place.
 */
const shallow: Step = (_links, call, draft) => {
  const refusal = call.method === 'tools/call' ? nestingRefusal(call.name, call.args, call.meta) : undefined;
  if (refusal) draft.refused = toErrorResult(refusal);
};

const limits: Step = (_links, call, draft) => {
  const admission = call.method === 'tools/call' ? draft.access?.admit?.() : undefined;
  if (!admission) return;
  if (admission instanceof Promise) return admittedLater(admission, draft);
  if (!admission.ok) {
    draft.refused = toErrorResult(rateLimited({ client: draft.access!.client }, admission));
    return;
  }
  return () => admission.release();
};

/**
 * An admission the shared store gives later: the call waits for it before it runs. A place
 * granted after the call already ended (cancelled while it waited) is given back at once; a store
 * that does not answer refuses the call (its error, UNAVAILABLE), never runs it without its limits.
 */
function admittedLater(admission: Promise<Admission>, draft: Draft): Ended {
  let release: (() => void) | undefined;
  let ended = false;
  draft.admitted = admission.then(
    (a) => {
      if (!a.ok) return toErrorResult(rateLimited({ client: draft.access!.client }, a));
      if (ended) a.release();
      else release = a.release;
      return undefined;
    },
    (error: unknown) => toErrorResult(error instanceof ToolError ? error : new ToolError('UNAVAILABLE', (error as Error).message)),
  );
  return () => {
    ended = true;
    release?.();
  };
}

const progress: Step = (_links, call, draft) => {
  const token = call.progressToken;
  const notify = call.notify;
  if (token === undefined || !notify) return;
  // Sending a notification is asynchronous, and after the result the client has dropped the token.
  draft.progress = (update) =>
    void draft.sending.push(notify({ method: 'notifications/progress', params: { ...update, progressToken: token } }).catch(() => undefined));
};

/** What a call cancelled by a revocation answers with, if it can still answer. */
export const REVOKED = new ToolError('FORBIDDEN', "This client's access was taken away while the call ran (the config changed): the call was cancelled.", {
  hint: 'Ask the gateway operator for access.',
});

const revocable: Step = (links, call, draft) => {
  if (!links.inFlight || call.method !== 'tools/call') return;
  const revocation = new Revocation();
  draft.revocation = revocation;
  // Cancelling settles once the call has ended: a promise made only when a reload cancels.
  let ended = false;
  let whenEnded: (() => void) | undefined;
  const forget = links.inFlight.add(() => {
    revocation.revoke(REVOKED);
    return ended ? Promise.resolve() : new Promise<void>((resolve) => (whenEnded = resolve));
  });
  return () => {
    ended = true;
    forget();
    whenEnded?.();
  };
};

const STEPS: readonly Step[] = [identity, audit, traced, shallow, limits, progress, revocable];

/** Begins a request's steps (see the module comment). */
export function beginCall(links: CallLinks, call: CallStart): BegunCall {
  const draft: Draft = { access: undefined, sending: [] };
  const ends: Ended[] = [];
  for (const step of STEPS) {
    const end = step(links, call, draft);
    if (end) ends.push(end);
    if (draft.refused) break;
  }
  let ended = false;
  // One object of one shape for every call (no spreads of optional parts): this runs per call.
  return {
    access: draft.access,
    refused: draft.refused,
    admitted: draft.admitted,
    trace: draft.trace,
    progress: draft.progress,
    revocation: draft.revocation,
    progressSent: () => Promise.all(draft.sending).then(() => undefined),
    end(outcome, answered) {
      if (ended) return; // a cancelled call may still be answered: it ends once
      ended = true;
      for (let i = ends.length - 1; i >= 0; i--) ends[i]!(outcome, answered);
    },
  };
}

/** Runs a request through the chain as one promise: a refused call answers with its refusal, unrun. */
export async function throughChain<T>(
  links: CallLinks,
  call: CallStart,
  run: (begun: BegunCall) => Promise<T>,
  answered?: () => Answered | undefined,
): Promise<T> {
  const begun = beginCall(links, call);
  const refused = begun.refused ?? (begun.admitted ? await begun.admitted : undefined);
  if (refused) {
    begun.end({ result: refused });
    return refused as T;
  }
  try {
    const result = await run(begun);
    begun.end({ result }, answered?.());
    return result;
  } catch (error) {
    begun.end({ error }, answered?.());
    throw error;
  }
}
