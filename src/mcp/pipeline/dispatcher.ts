import { CLIENT_INFO_META_KEY, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CallToolResult, CompleteRequest, LoggingLevel } from '@modelcontextprotocol/server';
import { errorObject, ToolError } from '../../core/errors.js';
import type { CallScope, Runtime } from '../../app/runtime.js';
import type { ProxyHub } from '../../proxy/hub.js';
import type { FastCall } from '../../proxy/calls/call-router.js';
import { requireReach } from '../../proxy/reach.js';
import type { DownstreamRelay } from '../../proxy/upstream/upstream.js';
import { toErrorResult } from '../../tool/mcp-shape.js';
import { SessionState, type ToolAccess, type ToolContext } from '../../tool/context.js';
import { beginCall, linksOf, REVOKED, throughChain, type BegunCall, type CallLinks, type CallStart, type ServeObservers } from './call-chain.js';
import { answeredOf, refusalAnswered, type Answered } from './call-record.js';
import type { InFlightScope } from './calls-in-flight.js';
import { planCall, type CallPlan, type PlanFor } from './call-plan.js';
import { runCodeCall } from './code-run.js';
import { OpenQuestions, personAsker, SharedQuestions, type QuestionBook } from './person-asker.js';
import { asProtocolError, invalidParams, protocolError, resourceNotFound, unknownTool } from './protocol-errors.js';
import type { CallPort } from './call-port.js';
import { proxyCallOf } from './proxy-call.js';
import { capabilitiesNeedOwnConnections } from './own-connections.js';
import type { CallParams, Downstream, RequestContext } from './request-context.js';

export type { CallParams } from './request-context.js';
export type { CallPlan } from './call-plan.js';

export interface DispatcherOptions {
  /**
   * The view's hub for this client, made on first use (so answering `initialize` needs no upstream).
   * `downstream` is given when the client declared sampling, elicitation or roots: the hub is then
   * this client's own, with connections that relay what servers ask to it.
   */
  hub: (downstream: DownstreamRelay | undefined) => Promise<ProxyHub>;
  runtime: Runtime;
  /** Whether the view has upstream servers (then prompts, resources and completions are answered). */
  hasServers: boolean;
  /** One 2026-07-28 HTTP request: the hub's change events reach clients through listen streams, not through this dispatcher. */
  perRequest?: boolean;
  /** Who the client is and what it may call (serve.clients), read per request so a reload applies; absent: stdio, anyone. */
  access?: () => ToolAccess | undefined;
  /** The client is remote (HTTP): its roots reach only servers whose entry says `roots: forward`. */
  remote?: boolean;
  /** Where its calls are registered, so that a revoked credential's are cancelled (./calls-in-flight.ts). */
  inFlight?: InFlightScope;
  /** What hears of serve's calls (the audit log, the metrics, tracing); absent: nothing does. */
  observers?: ServeObservers;
  /** A terminal's command (in the daemon too): mcpkit's own tools it calls see its folder and environment. */
  caller?: Pick<CallScope, 'cwd' | 'env'>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each method's params are its own; the carrier checked their shape
type Handler = (params: any, ctx: RequestContext) => Promise<Record<string, unknown>>;

/** How a call the client cancelled ends in the audit log: it got no answer. */
const CANCELLED = Object.freeze({ code: 'CANCELLED', message: 'The client cancelled the request; it was not answered.' });

/** The key of the questions put to 2026-07-28 clients and awaiting answers (./person-asker.ts), kept by the runtime's serving state. */
const OPEN_QUESTIONS = Symbol('open questions');
function questionsOf(runtime: Runtime): QuestionBook {
  const store = runtime.serving.store;
  // This process', or the replicas' (serve.store, handed over before serve answers anything).
  return runtime.serving.kept<QuestionBook>(OPEN_QUESTIONS, () => (store ? new SharedQuestions(store) : new OpenQuestions()));
}

/** The prompts, resources or templates a client's rules allow, by name (they only read). */
function visible<T extends { name: string }>(allows: ToolAccess['allows'], items: T[]): T[] {
  return allows ? items.filter((item) => allows({ name: item.name, readOnly: true })) : items;
}

async function hubOrProtocolError(hub: () => Promise<ProxyHub>): Promise<ProxyHub> {
  try {
    return await hub();
  } catch (error) {
    const published = errorObject(error);
    throw protocolError(ProtocolErrorCode.InternalError, published.message, published);
  }
}

/**
 * The one pipeline of every downstream request, whatever the transport or era: one client
 * connection's (or one 2026-07-28 request's) answers to the methods mcpkit serves. Carriers enter
 * it with a request context (./request-context.ts): the SDK server's handlers (./sdk-server.ts),
 * the wire's tools/call (./wire-calls.ts), the task host's later rounds (./task-host.ts).
 *
 * A tools/call runs in one place, `call`: who calls is read once, whether the hub's hot path
 * takes it is decided once, then the call's steps (./call-chain.ts: audit, trace, limits, progress,
 * revocation) begin, the call runs the way decided, and the steps end with its answer.
 */
export class Dispatcher implements CallPort {
  /** This client's state in the hubs (log level, subscriptions): one per connection. */
  readonly session = new SessionState();
  /** The request methods answered here, by name. */
  readonly methods: ReadonlyMap<string, Handler>;
  private readonly context: ToolContext;
  private readonly links: CallLinks;
  private resolved: ProxyHub | undefined;
  private making: Promise<ProxyHub> | undefined;
  private listening: (() => void)[] | undefined;
  private readonly offProblems: (() => void) | undefined;

  constructor(
    private readonly options: DispatcherOptions,
    /** The client at the other end, for the carriers that ask it things about a request themselves. */
    readonly downstream: Downstream,
  ) {
    this.context = options.runtime.context({ session: this.session, ...options.caller });
    this.links = linksOf(options.observers, options.access, options.inFlight);
    this.methods = new Map(Object.entries(this.table()));
    // A config that could not be reloaded is told to the client, at warning level (its own level permitting).
    this.offProblems = options.perRequest
      ? undefined
      : options.runtime.configs.live.problems.on((message) => {
          if (this.resolved && !this.resolved.clients.wantsLog(this.session, 'warning')) return;
          void downstream.notify({ method: 'notifications/message', params: { level: 'warning', logger: 'mcpkit', data: message } }).catch(() => undefined);
        });
  }

  /** The hub, once a request made it: the wire's hot path needs it known. */
  get hub(): ProxyHub | undefined {
    return this.resolved;
  }

  /** How a call will run, decided once (./call-plan.ts): who calls, and the hot path if it takes the call. */
  plan(params: CallParams, ctx: PlanFor): CallPlan {
    return planCall(this.resolved, params, this.links.access?.(), ctx);
  }

  /** Runs one tools/call, and is the only place that does (./call-port.ts): every front end enters here (the terminal's too, ./terminal-calls.ts). */
  call(params: CallParams, ctx: RequestContext, plan: CallPlan = this.plan(params, ctx)): Promise<Record<string, unknown>> {
    const { access, fast } = plan;
    const begun = beginCall(this.links, {
      method: 'tools/call',
      access, // as read to decide: one identity for the whole call
      name: params.name,
      args: params.arguments ?? {},
      meta: params._meta,
      request: ctx.id,
      session: ctx.session,
      client: this.clientOf(ctx),
      view: () => this.resolved?.view.name,
      // A 2026-07-28 request carries its trace context in its envelope; a code run's call hangs under the run.
      traceContext: ctx.traceContext ?? (ctx.envelope?.traceparent !== undefined ? ctx.envelope : params._meta),
      ...(ctx.parent ? { parent: ctx.parent } : {}),
      // The hot path relays progress as the upstream sent it (the forwarder puts back the client's token).
      ...(fast ? {} : { progressToken: params._meta?.progressToken, notify: (n: Parameters<NonNullable<CallStart['notify']>>[0]) => ctx.notify(n) }),
    });
    const refusedFor = () =>
      refusalAnswered(
        (this.making ?? this.options.hub(undefined)).then((hub) => hub.catalog),
        fast,
        params.name,
      );
    if (begun.refused) return Promise.resolve(this.answer(ctx, begun, begun.refused, refusedFor()));
    const run = () => (fast ? this.runFast(fast, ctx, begun) : this.runOrdinary(params, ctx, begun));
    // Limits kept in the shared store: the call runs once it holds its place there.
    if (begun.admitted) return begun.admitted.then((no) => (no ? this.answer(ctx, begun, no, refusedFor()) : run()));
    return run();
  }

  /** The client's roots changed: its own connections tell their servers. */
  async rootsChanged(): Promise<void> {
    await this.resolved?.rootsChanged();
  }

  /** The connection closed: its subscriptions, and its own hub if it has one, go with it. */
  close(): void {
    this.offProblems?.();
    this.listening?.forEach((off) => off());
    const hub = this.resolved;
    if (hub) void (hub.relaysRequests ? hub.close() : hub.clients.detach(this.session)).catch(() => undefined);
  }

  /** The steps end with the answer (a refusal's once what it was for is known); a carrier that sends it itself says how many bytes of the result it sent. */
  private answer(ctx: RequestContext, begun: BegunCall, result: CallToolResult, answered?: Answered | Promise<Answered>): CallToolResult {
    let sent: number | void | undefined;
    // A client gone (its request aborted, or its response closed) is sent nothing.
    if (!ctx.signal.aborted && !ctx.cancel?.gone) {
      try {
        sent = ctx.send?.(result);
      } catch (error) {
        // A result no encoder can write (nested thousands deep, JSON.stringify runs out of stack)
        // is answered with why, and the call still ends: its audit line, its place in flight.
        result = toErrorResult(new ToolError('UPSTREAM_ERROR', `The server's answer could not be passed on: ${(error as Error).message}.`));
        sent = ctx.send?.(result);
      }
    }
    const end = (by?: Answered) => begun.end({ result, resultBytes: typeof sent === 'number' ? sent : undefined }, by);
    void (answered instanceof Promise ? answered.then(end) : end(answered));
    return result;
  }

  /** The hot path: forwarded to the upstream's transport, answered from its response. */
  private runFast(fast: FastCall, ctx: RequestContext, begun: BegunCall): Promise<Record<string, unknown>> {
    const answered = { entry: fast.entry };
    return new Promise((resolve, reject) => {
      let settled = false;
      let cancel = () => {};
      const hook = ctx.cancel;
      const off = () => {
        offRevoked?.();
        if (hook) hook.run = undefined;
        else ctx.signal.removeEventListener('abort', cancelled);
      };
      const settle = (result: CallToolResult) => {
        if (settled) return;
        settled = true;
        off();
        resolve(this.answer(ctx, begun, result, answered));
      };
      // A revoked credential's call is cancelled upstream and answered with why, at once.
      const revoked = () => (cancel(), settle(toErrorResult(REVOKED)));
      const cancelled = () => {
        if (settled) return;
        settled = true;
        off();
        cancel();
        begun.end({ error: CANCELLED }, answered);
        reject(Object.assign(new Error(CANCELLED.message), { code: -32800 }));
      };
      const offRevoked = begun.revocation?.on(revoked);
      if (hook) hook.run = cancelled;
      else ctx.signal.addEventListener('abort', cancelled, { once: true });
      // A client gone before its call starts (it waited for its place under shared limits): the call is never sent.
      if (ctx.signal.aborted || hook?.gone) return cancelled();
      cancel = fast.run({
        reply: settle,
        progress: ctx.relay ?? ((message) => void ctx.notify(message as { method: string; params?: Record<string, unknown> }).catch(() => undefined)),
        related: ctx.id,
        ...(begun.trace ? { trace: begun.trace } : {}),
      });
      if (ctx.signal.aborted || hook?.gone) cancelled();
    });
  }

  /** The ordinary path: the hub's router (meta-tools, mcpkit's tools, hooks, composites, gated servers). */
  private async runOrdinary(params: CallParams, ctx: RequestContext, begun: BegunCall): Promise<Record<string, unknown>> {
    let answered: Answered | undefined;
    try {
      const { name, arguments: args } = params;
      const revoked = begun.revocation;
      const hub = await this.ready();
      // A code view's run: a script whose calls come back here, each an ordinary call (./code-run.ts).
      const code = hub.catalog.codeRun;
      if (code && name === code.tool) {
        const result = await runCodeCall(this.options.runtime, hub, code, params, ctx, begun, this);
        return this.answer(ctx, begun, result, { meta: true });
      }
      const asker = personAsker(ctx, { tool: name, args }, () => this.downstream.capabilities(), questionsOf(this.options.runtime));
      const outcome = await hub.calls.call(name, args, proxyCallOf(this.context, ctx, begun, asker));
      await begun.progressSent();
      // A call the revocation of its credential cancelled says so, not how its upstream took the cancel.
      if (revoked?.aborted) return this.answer(ctx, begun, toErrorResult(REVOKED));
      answered = await answeredOf(hub.catalog, name, outcome);
      if (!outcome.found) throw unknownTool(name, outcome.similar);
      return this.answer(ctx, begun, outcome.result, answered);
    } catch (error) {
      begun.end({ error }, answered);
      throw error;
    }
  }

  /**
   * Starts the servers this client will use, before it asks for them (serve.eager over stdio,
   * ./stdio.ts): its hub, made as its first request would make it (connections of its own when it
   * is worth them), and every server of it. What fails is reported when it is used.
   */
  async warm(): Promise<void> {
    // Before a client has said what it declares, a hub made now would be the wrong one for good.
    if (!this.options.hasServers || this.downstream.capabilities() === undefined) return;
    await (await this.ready()).warmUp();
  }

  /** The hub of this client, made on its first request; then the hub's changes reach the client. */
  private async ready(): Promise<ProxyHub> {
    const hub = await hubOrProtocolError(() => (this.making ??= this.options.hub(this.relay())));
    this.resolved = hub;
    if (!this.options.perRequest) this.listening ??= this.listen(hub);
    return hub;
  }

  private listen(hub: ProxyHub): (() => void)[] {
    const tell = (method: string, params?: Record<string, unknown>, related?: unknown) =>
      void this.downstream.notify({ method, ...(params ? { params } : {}) }, related as never).catch(() => undefined);
    return [
      hub.events.toolsChanged.on(() => tell('notifications/tools/list_changed')),
      hub.events.promptsChanged.on(() => tell('notifications/prompts/list_changed')),
      hub.events.resourcesChanged.on(() => tell('notifications/resources/list_changed')),
      hub.events.logs.on((params, related) => {
        if (hub.clients.wantsLog(this.session, params.level)) tell('notifications/message', params as Record<string, unknown>, related);
      }),
      hub.events.updates.on((uri) => {
        if (hub.clients.subscribed(this.session, uri)) tell('notifications/resources/updated', { uri });
      }),
    ];
  }

  /** What servers may ask of this client, if it is worth connections of its own (Runtime.clientHub). */
  private relay(): DownstreamRelay | undefined {
    const { hasServers, remote = false, runtime } = this.options;
    const capabilities = this.downstream.capabilities();
    const rootsReachAServer = !remote || Object.values(runtime.configs.live.loaded?.mcp_servers ?? {}).some((server) => server.roots === 'forward');
    if (!hasServers || !capabilitiesNeedOwnConnections(capabilities, rootsReachAServer)) return undefined;
    return {
      capabilities: capabilities!,
      remote,
      request: (method, params, related) => this.downstream.request(method, params as Record<string, unknown> | undefined, related),
    };
  }

  private clientOf(ctx: RequestContext): () => { name?: unknown; version?: unknown } | undefined {
    return () => (ctx.envelope?.[CLIENT_INFO_META_KEY] as { name?: unknown; version?: unknown } | undefined) ?? this.downstream.client();
  }

  /** A request for a prompt or a resource, through the call's steps (audit, trace) as a tools/call. */
  private chained<T>(method: CallStart['method'], name: string, args: unknown, ctx: RequestContext, run: () => Promise<T>): Promise<T> {
    return throughChain(
      this.links,
      { method, name, args, request: ctx.id, session: ctx.session, client: this.clientOf(ctx), view: () => this.resolved?.view.name },
      run,
    );
  }

  /** Every method but tools/call only reads, through the client's rules (proxy/reach.ts). */
  private table(): Record<string, Handler> {
    const shown = () => this.options.access?.()?.allows;
    const hub = () => this.ready();
    const own: Record<string, Handler> = {
      'tools/list': async () => ({ tools: await (await hub()).catalog.list(this.options.access?.()) }),
      'tools/call': (params: CallParams, ctx) => this.call(params, ctx),
      'logging/setLevel': async (params: { level: LoggingLevel }) => {
        // Only upstream servers log to clients: with none, there is nothing to filter.
        if (this.options.hasServers) await (await hub()).clients.setLogLevel(this.session, params.level);
        return {};
      },
    };
    if (!this.options.hasServers) return own;
    // Prompts and resources of the upstream servers, filtered like their tools: a client with rules sees those its rules allow by name.
    return {
      ...own,
      'prompts/list': async () => ({ prompts: visible(shown(), await (await hub()).passthrough.listPrompts()) }),
      'prompts/get': (params: { name: string; arguments?: Record<string, string> }, ctx) =>
        this.chained('prompts/get', params.name, params.arguments ?? {}, ctx, () =>
          asProtocolError(async () => {
            const h = await hub();
            await requireReach(h.passthrough, shown(), { prompt: params.name });
            return h.passthrough.getPrompt(params.name, params.arguments, ctx.modern);
          }, invalidParams),
        ),
      'resources/list': async () => ({ resources: visible(shown(), await (await hub()).passthrough.listResources()) }),
      'resources/templates/list': async () => ({ resourceTemplates: visible(shown(), await (await hub()).passthrough.listResourceTemplates()) }),
      'resources/read': (params: { uri: string }, ctx) =>
        this.chained('resources/read', params.uri, undefined, ctx, () =>
          asProtocolError(async () => {
            const h = await hub();
            await requireReach(h.passthrough, shown(), { uri: params.uri });
            return h.passthrough.readResource(params.uri, ctx.modern);
          }, resourceNotFound(params.uri)),
        ),
      'resources/subscribe': async (params: { uri: string }) => {
        await asProtocolError(async () => {
          const h = await hub();
          await requireReach(h.passthrough, shown(), { uri: params.uri });
          return h.clients.subscribe(this.session, params.uri);
        }, resourceNotFound(params.uri));
        return {};
      },
      'resources/unsubscribe': async (params: { uri: string }) => {
        await asProtocolError(() => hub().then((h) => h.clients.unsubscribe(this.session, params.uri)), resourceNotFound(params.uri));
        return {};
      },
      'completion/complete': (params: CompleteRequest['params']) =>
        asProtocolError(async () => {
          const h = await hub();
          const ref = params.ref;
          await requireReach(h.passthrough, shown(), ref.type === 'ref/prompt' ? { prompt: ref.name } : { template: ref.uri });
          return h.complete(params);
        }, invalidParams),
    };
  }
}
