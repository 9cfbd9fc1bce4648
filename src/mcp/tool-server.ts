import { CLIENT_INFO_META_KEY, Server, ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import type { ClientCapabilities, ServerCapabilities, ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { errorObject, ToolError } from '../core/errors.js';
import type { Runtime } from '../app/runtime.js';
import type { ProxyHub } from '../proxy/hub.js';
import type { Answered } from './call-record.js';
import { linksOf, REVOKED, throughChain, type BegunCall, type CallStart } from './call-chain.js';
import { toErrorResult } from '../tool/mcp-shape.js';
import type { InFlightScope } from './calls-in-flight.js';
import { modernRequestOf } from './modern-request.js';
import { OpenQuestions, personAsker } from './person-asker.js';
import type { DownstreamRelay } from '../proxy/upstream/upstream.js';
import { requireReach } from '../proxy/reach.js';
import { SessionState, type ToolAccess } from '../tool/context.js';

export interface ToolServerOptions {
  /**
   * The view's hub for this client, made on first use (so answering `initialize` needs no upstream).
   * `downstream` is given when the client declared sampling, elicitation or roots: the hub is then
   * this client's own, with connections that relay what servers ask to it.
   */
  hub: (downstream: DownstreamRelay | undefined) => Promise<ProxyHub>;
  runtime: Runtime;
  /** Whether the view has upstream servers (which capabilities are declared). */
  hasServers: boolean;
  /**
   * The server answers one 2026-07-28 HTTP request: the hub's change events reach clients through
   * the handler's listen streams (mcp/modern-http.ts), not through this short-lived server.
   */
  perRequest?: boolean;
  /** Who the client is and what it may call (serve.clients), read per request so a reload applies; absent: stdio, anyone. */
  access?: () => ToolAccess | undefined;
  /** Extensions the route serves beside the server (the task host, ./task-host.ts): server/discover names them. */
  extensions?: NonNullable<ServerCapabilities['extensions']>;
  /** The client is remote (HTTP): its roots reach only servers whose entry says `roots: forward`. */
  remote?: boolean;
  /** Where its calls are registered, so that a revoked credential's are cancelled (./calls-in-flight.ts). */
  inFlight?: InFlightScope;
}

/**
 * A JSON-RPC error for the SDK to send. Not McpError: its message gains an "MCP error N:" prefix on
 * the wire, which the client then prefixes again.
 */
function protocolError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, data });
}

/**
 * An unknown resource URI: -32602 with the URI in `data`, which the 2026-07-28 spec names and the
 * SDK sends in both eras (2025-11-25 said -32002; clients are told to accept either).
 */
const resourceNotFound = (uri: string) => (message: string, published: object) =>
  Object.assign(new ResourceNotFoundError(uri, message), { data: { ...published, uri } });
const invalidParams = (message: string, published: object) => protocolError(ProtocolErrorCode.InvalidParams, message, published);

/** prompts/get and resources/read report failures as JSON-RPC errors; NOT_FOUND gets the code the spec names. */
async function asProtocolError<T>(run: () => Promise<T>, notFound: (message: string, published: object) => Error): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ProtocolError || typeof (error as { code?: unknown }).code === 'number') throw error;
    const published = errorObject(error);
    if (error instanceof ToolError && error.code === 'NOT_FOUND') throw notFound(published.message, published);
    throw protocolError(ProtocolErrorCode.InternalError, published.message, published);
  }
}

const INSTRUCTIONS =
  'mcpkit tools, and the tools of the MCP servers it proxies. Every mcpkit tool returns JSON; a failed call has isError set and an error object with code, message and often a hint on what to do next.';

async function hubOrProtocolError(hub: () => Promise<ProxyHub>): Promise<ProxyHub> {
  try {
    return await hub();
  } catch (error) {
    const published = errorObject(error);
    throw protocolError(ProtocolErrorCode.InternalError, published.message, published);
  }
}

/** The questions this process put to 2026-07-28 clients and awaits answers to (./person-asker.ts). */
const openQuestions = new WeakMap<Runtime, OpenQuestions>();
function questionsOf(runtime: Runtime): OpenQuestions {
  let questions = openQuestions.get(runtime);
  if (!questions) openQuestions.set(runtime, (questions = new OpenQuestions()));
  return questions;
}

type Allows = NonNullable<ToolAccess['allows']>;

/** The prompts, resources or templates a client's rules allow, by name (they only read). */
function visible<T extends { name: string }>(allows: Allows | undefined, items: T[]): T[] {
  return allows ? items.filter((item) => allows({ name: item.name, readOnly: true })) : items;
}

/** Results of server-to-client requests are passed back to the upstream as the client gave them. */
const PassThrough = z.looseObject({});

/** What a 2026-07-28 request passes on to the server it is proxied to (undefined for a 2025 one). */
const modernOf = (ctx: ServerContext) =>
  modernRequestOf(ctx.mcpReq.envelope, { inputResponses: ctx.mcpReq.inputResponses, requestState: ctx.mcpReq.requestState() }, ctx.http?.req?.headers);

/**
 * Which of the client's capabilities make it worth connections of its own (see ProxyHub.downstream):
 * roots only where some server would be offered them (a remote client's go to `roots: forward` servers alone).
 */
function needsOwnConnections(capabilities: ClientCapabilities | undefined, rootsReachAServer: boolean): boolean {
  return Boolean(capabilities?.sampling || capabilities?.elicitation || (rootsReachAServer && capabilities?.roots));
}

/** Whether any server of the config takes a remote client's roots (`roots: forward`). */
function someServerForwardsRoots(runtime: Runtime): boolean {
  return Object.values(runtime.live.loaded?.mcp_servers ?? {}).some((server) => server.roots === 'forward');
}

/** The hub each tool server resolved, for the hot path beside it: kept apart from the SDK's Server object, not added to it. */
const resolvers = new WeakMap<Server, () => ProxyHub | undefined>();

/**
 * The MCP server of one client connection, plus the hub it resolved (for the hot path, once known).
 * Capabilities follow the view: prompts, resources (with subscriptions) and completions only when
 * it has upstream servers; logging always (mcpkit honours logging/setLevel itself).
 */
export function createToolServer({ hub, runtime, hasServers, perRequest, access, extensions, remote = false, inFlight }: ToolServerOptions): Server {
  // One server per client connection, so one session: its state is this client's alone.
  const session = new SessionState();
  const context = runtime.context({ session });
  const server = new Server(
    { name: 'mcpkit', title: 'mcpkit', version: runtime.version() },
    {
      capabilities: {
        // A reloaded config changes the catalog (./run-serve.ts follows the file), as do upstream servers.
        tools: { listChanged: true },
        logging: {},
        ...(hasServers ? { prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true }, completions: {} } : {}),
      },
      instructions: INSTRUCTIONS,
    },
  );
  if (extensions) server.registerCapabilities({ extensions });
  let unsubscribe: (() => void)[] | undefined;
  let resolved: ProxyHub | undefined;
  let making: Promise<ProxyHub> | undefined;
  const relay = (): DownstreamRelay | undefined => {
    const capabilities = server.getClientCapabilities();
    if (!hasServers || !needsOwnConnections(capabilities, !remote || someServerForwardsRoots(runtime))) return undefined;
    return {
      capabilities: capabilities!,
      remote,
      request: (method, params, related) =>
        server.request({ method, params } as never, PassThrough, {
          ...(related !== undefined ? { relatedRequestId: related } : {}),
          // A person may be answering (elicitation); the upstream's own timeout bounds the wait.
          timeout: 10 * 60_000,
        }) as Promise<Record<string, unknown>>,
    };
  };
  /** Its own hub when it declares what a server may ask of it (Runtime.clientHub), else the shared one. */
  const made = async () => hub(relay());
  const ready = async () => {
    const h = await hubOrProtocolError(() => (making ??= made()));
    resolved = h;
    if (perRequest) return h;
    unsubscribe ??= [
      h.onListChanged(() => void server.sendToolListChanged().catch(() => undefined)),
      h.onPromptsChanged(() => void server.sendPromptListChanged().catch(() => undefined)),
      h.onResourcesChanged(() => void server.sendResourceListChanged().catch(() => undefined)),
      h.onLog((params, related) => {
        if (!h.clients.wantsLog(session, params.level)) return;
        void server
          .notification({ method: 'notifications/message', params }, related !== undefined ? { relatedRequestId: related } : undefined)
          .catch(() => undefined);
      }),
      h.onResourceUpdated((uri) => {
        if (h.clients.subscribed(session, uri)) void server.sendResourceUpdated({ uri }).catch(() => undefined);
      }),
    ];
    return h;
  };
  // A config that could not be reloaded is told to the client, at warning level (its own level permitting).
  const offProblems = perRequest
    ? undefined
    : runtime.live.problems.on((message) => {
        if (resolved && !resolved.clients.wantsLog(session, 'warning')) return;
        void server.sendLoggingMessage({ level: 'warning', logger: 'mcpkit', data: message }).catch(() => undefined);
      });
  server.onclose = () => {
    offProblems?.();
    unsubscribe?.forEach((off) => off());
    if (resolved) void (resolved.relaysRequests ? resolved.close() : resolved.clients.detach(session)).catch(() => undefined);
  };
  const links = linksOf(runtime, access, inFlight);
  /** A request through the chain of its steps (./call-chain.ts): who asked (a 2025 session's client, or a 2026 request's envelope), and what answered. */
  const chained = <T>(
    call: { method: CallStart['method']; name: string; args: unknown; progressToken?: unknown; traceContext?: Record<string, unknown> | undefined },
    ctx: ServerContext,
    run: (begun: BegunCall) => Promise<T>,
    answered?: () => Answered | undefined,
  ): Promise<T> => {
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    return throughChain(
      links,
      {
        ...call,
        request: ctx.mcpReq.id,
        session: ctx.sessionId,
        client: () => (envelope?.[CLIENT_INFO_META_KEY] as { name?: unknown; version?: unknown } | undefined) ?? server.getClientVersion(),
        view: () => resolved?.view.name,
        // A 2026-07-28 request carries its trace context in its envelope.
        traceContext: envelope?.traceparent !== undefined ? envelope : call.traceContext,
        notify: (notification) => ctx.mcpReq.notify(notification),
      },
      run,
      answered,
    );
  };
  server.setRequestHandler('tools/list', async () => ({ tools: await (await ready()).list(access?.()) }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    let answeredBy: Answered | undefined;
    const { name, arguments: args, _meta: meta } = request.params;
    return chained(
      { method: 'tools/call', name, args: args ?? {}, progressToken: meta?.progressToken, traceContext: meta },
      ctx,
      async ({ access: caller, trace, progress, progressSent, revoked }) => {
        const modern = modernOf(ctx);
        const outcome = await (
          await ready()
        ).call(name, args, {
          ...context,
          signal: revoked ? AbortSignal.any([ctx.mcpReq.signal, revoked]) : ctx.mcpReq.signal,
          requestId: ctx.mcpReq.id,
          askPerson: personAsker(ctx, { tool: name, args }, () => server.getClientCapabilities(), questionsOf(runtime)),
          ...(progress ? { progress } : {}),
          ...(modern ? { modern } : {}),
          ...(trace ? { trace } : {}),
          ...(caller ? { access: caller } : {}),
        });
        await progressSent();
        // A call the revocation of its credential cancelled says so, not how its upstream took the cancel.
        if (revoked?.aborted) return toErrorResult(REVOKED);
        if (outcome.found)
          answeredBy = {
            ...(outcome.entry ? { entry: outcome.entry } : {}),
            ...(outcome.via ? { via: outcome.via } : {}),
            ...(outcome.meta ? { meta: true } : {}),
          };
        if (!outcome.found) {
          const hint = outcome.similar.length ? `Did you mean ${outcome.similar.join(', ')}?` : 'Call tools/list for the available tools.';
          // Spec: an unknown tool is a protocol error (-32602), not a tool result.
          throw protocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}. ${hint}`, { code: 'NOT_FOUND', tool: name, similar: outcome.similar });
        }
        return outcome.result;
      },
      () => answeredBy,
    );
  });
  server.setRequestHandler('logging/setLevel', async (request) => {
    // Only upstream servers log to clients: with none, there is nothing to filter.
    if (hasServers) await (await ready()).clients.setLogLevel(session, request.params.level);
    return {};
  });
  server.setNotificationHandler('notifications/roots/list_changed', async () => {
    await resolved?.rootsChanged();
  });
  if (hasServers) {
    // Prompts and resources of the upstream servers, filtered like their tools.
    // A client with rules sees the prompts and resources its rules allow by name, as a view's filter does.
    const shown = () => access?.()?.allows;
    server.setRequestHandler('prompts/list', async () => ({ prompts: visible(shown(), await (await ready()).passthrough.listPrompts()) }));
    server.setRequestHandler('prompts/get', async (request, ctx) =>
      chained({ method: 'prompts/get', name: request.params.name, args: request.params.arguments ?? {} }, ctx, () =>
        asProtocolError(async () => {
          const h = await ready();
          await requireReach(h.passthrough, shown(), { prompt: request.params.name });
          return h.passthrough.getPrompt(request.params.name, request.params.arguments, modernOf(ctx));
        }, invalidParams),
      ),
    );
    server.setRequestHandler('resources/list', async () => ({ resources: visible(shown(), await (await ready()).passthrough.listResources()) }));
    server.setRequestHandler('resources/templates/list', async () => ({
      resourceTemplates: visible(shown(), await (await ready()).passthrough.listResourceTemplates()),
    }));
    server.setRequestHandler('resources/read', async (request, ctx) =>
      chained({ method: 'resources/read', name: request.params.uri, args: undefined }, ctx, () =>
        asProtocolError(async () => {
          const h = await ready();
          await requireReach(h.passthrough, shown(), { uri: request.params.uri });
          return h.passthrough.readResource(request.params.uri, modernOf(ctx));
        }, resourceNotFound(request.params.uri)),
      ),
    );
    server.setRequestHandler('resources/subscribe', async (request) => {
      await asProtocolError(async () => {
        const h = await ready();
        await requireReach(h.passthrough, shown(), { uri: request.params.uri });
        return h.clients.subscribe(session, request.params.uri);
      }, resourceNotFound(request.params.uri));
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', async (request) => {
      await asProtocolError(() => ready().then((h) => h.clients.unsubscribe(session, request.params.uri)), resourceNotFound(request.params.uri));
      return {};
    });
    server.setRequestHandler('completion/complete', async (request) =>
      asProtocolError(async () => {
        const h = await ready();
        const ref = request.params.ref;
        await requireReach(h.passthrough, shown(), ref.type === 'ref/prompt' ? { prompt: ref.name } : { template: ref.uri });
        return h.complete(request.params);
      }, invalidParams),
    );
  }
  server.onerror = (error) => context.logger.error(`MCP: ${error.message}`);
  resolvers.set(server, () => resolved);
  return server;
}

/** The hub `server` resolved for its view (undefined until its first request needs one). */
export function resolvedHubOf(server: Server): () => ProxyHub | undefined {
  return resolvers.get(server) ?? (() => undefined);
}
