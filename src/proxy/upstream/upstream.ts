import { ProtocolError } from '@modelcontextprotocol/client';
import type { Client, CallToolResult, ClientCapabilities, LoggingMessageNotification, RequestId, Tool } from '@modelcontextprotocol/client';
import type { ToolError } from '../../core/errors.js';
import { modernParams } from '../eras/era.js';
import { ListenStream } from '../eras/listen-stream.js';
import { InputBridge } from '../eras/input-bridge.js';
import { UpstreamEvents, type ServerNotices } from './upstream-events.js';
import { routeServerRequests } from './server-requests.js';
import { ReadThrough, type UpstreamReads } from './upstream-reads.js';
import { InFlight } from './in-flight.js';
import { sendToolCall, type ForwardHow, type UpstreamCall, type UpstreamTrace } from './send-call.js';
import { malformedResult, requestFailure } from './upstream-failure.js';
import { ProgressTimeout, REQUEST_TIMEOUT, type TimeoutKind } from './progress-timeout.js';
import { malformedCallResult } from './call-result.js';
import { UpstreamConnection, type UpstreamOptions } from './upstream-connection.js';
import type { UpstreamStatus } from './upstream-status.js';

export type { DownstreamRelay, UpstreamOptions, UpstreamState } from './upstream-connection.js';

export type { UpstreamStatus } from './upstream-status.js';
import { connectionStatus } from './upstream-status.js';
export type { UpstreamCall } from './send-call.js';
export type { UpstreamReads } from './upstream-reads.js';
export type { ServerNotices } from './upstream-events.js';

export type LogParams = LoggingMessageNotification['params'];

/** How long a bridged call waits for its client's retry: a person may be answering (as for a relayed elicitation). */
const BRIDGE_PARK_MS = 10 * 60_000;

/**
 * One upstream MCP server as the proxy uses it, in three roles: its connection and tool calls
 * (this class: the connection is ./upstream-connection.ts, the tool list cached and refreshed on
 * list_changed), what the proxy reads of it besides tools (`reads`, ./upstream-reads.ts), and what
 * it tells the proxy (`events`: log messages, list and resource changes). Failures are in
 * mcpkit's words.
 */
export class Upstream {
  readonly name: string;
  private readonly connection: UpstreamConnection;
  private tools?: Tool[];
  /** A listing under way (a revived round's first attempt and the catalog's listing share it). */
  private listing?: Promise<Tool[]>;
  /** What the server tells, and the downstream calls it is told during (./upstream-events.ts). */
  private readonly heard = new UpstreamEvents();
  /** What the server tells, to listen to (each `on` returns its unsubscribe). */
  readonly events: ServerNotices = this.heard;
  /** The subscriptions/listen stream of a 2026 server (list changes and subscribed resources). */
  private readonly listening: ListenStream;
  /** 2026 clients' calls parked while they answer what this (2025) server asked. */
  private readonly bridge: InputBridge<CallToolResult>;
  /** Tool calls in flight, on either path (retire waits for them). */
  private readonly calls = new InFlight();
  private readonly readThrough: ReadThrough;
  /** Prompts, resources, templates and completions, read through, and what clients asked the server to send (./upstream-reads.ts). */
  readonly reads: UpstreamReads;

  private readonly refusedBecause: boolean;

  constructor(options: UpstreamOptions) {
    this.name = options.name;
    this.refusedBecause = options.problems !== undefined && options.problemsHint !== undefined;
    this.bridge = new InputBridge<CallToolResult>(BRIDGE_PARK_MS, options.requestStateTag);
    this.listening = new ListenStream(options.name, options.logger);
    this.connection = new UpstreamConnection(options, {
      setUp: (client, offered) => this.setUp(client, offered),
      connected: async (client) => {
        // A 2026 server says what changed only on a listen stream; it has no session log level to set.
        if (client.getProtocolEra() === 'modern') return void this.listening.attach(client);
        await this.readThrough.sendLevel(client).catch((error) => options.logger.warn(`${this.name}: logging/setLevel failed: ${(error as Error).message}`));
      },
      reconnected: async (client) => {
        await this.refreshTools(client);
        this.heard.toolsChanged.emit();
      },
    });
    this.reads = this.readThrough = new ReadThrough(this.name, this.connection, this.listening);
  }

  /** The MCP revision the connection speaks, once connected (2026-07-28, or a 2025 one). */
  protocolVersion(): string | undefined {
    return this.connection.client?.getNegotiatedProtocolVersion();
  }

  get timeoutMs(): number {
    return this.connection.timeoutMs;
  }

  /**
   * Why this caller cannot reach the server until someone acts: a per_client server it has no
   * credentials for, or a login it lacks (AUTH_REQUIRED, naming the command), if so.
   */
  refusal(): ToolError | undefined {
    if (this.refusedBecause) return this.connection.unavailable();
    return this.connection.state === 'needs_login' ? this.connection.loginError : undefined;
  }

  status(): UpstreamStatus {
    return connectionStatus(this.name, this.connection, { protocol: this.protocolVersion(), tools: this.tools?.length });
  }

  connect(): Promise<Client> {
    return this.connection.connect();
  }

  close(because?: string): Promise<void> {
    this.bridge.close();
    void this.listening.close();
    return this.connection.close(because);
  }

  /**
   * Closes the connection once its tool calls in flight have ended, or after `graceMs` (a config
   * reload removed or changed the server): a call still running then ends with an error saying
   * `because`, never a hang. New calls no longer come here (the hubs were re-pointed first).
   */
  async retire(graceMs: number, because: string): Promise<void> {
    await this.calls.ended(graceMs);
    await this.close(because);
  }

  /** Tool calls in flight, when one last began (0: never), and whether it is connected or connecting. */
  activity(): { busy: boolean; lastUsed: number; awake: boolean } {
    return { busy: this.calls.count > 0, lastUsed: this.calls.lastBegun, awake: !['idle', 'closed'].includes(this.connection.state) };
  }

  /** Closes the connection until it is next used (Runtime's cap on clients' own connections); not while calls are in flight. */
  async sleep(): Promise<boolean> {
    if (this.calls.count > 0) return false;
    await this.connection.sleep();
    return true;
  }

  /** A tool call begins: it is counted in flight, and related to the downstream request that caused it; the returned function ends it (once). */
  private begin(related: RequestId | undefined): () => void {
    const unrelate = this.heard.relate(related);
    const end = this.calls.begin();
    return () => {
      unrelate();
      end();
    };
  }

  /** The upstream's tools, from cache once connected; listings at the same time share one. */
  listTools(): Promise<Tool[]> {
    if (this.tools && this.connection.state === 'ready') return Promise.resolve(this.tools);
    return (this.listing ??= this.connection
      .connect()
      .then((client) => this.refreshTools(client))
      .finally(() => (this.listing = undefined)));
  }

  /** Due a new reconnect round (UpstreamConnection.revives): its first attempt is a listing, begun now, that every view hears of once it answers. */
  revive(): boolean {
    if (!this.connection.revives()) return false;
    this.listTools().then(
      () => this.heard.toolsChanged.emit(),
      () => undefined,
    ); // a failed attempt scheduled the round's next
    return true;
  }

  /** The tools last seen, without connecting: this process's listing, else the seed an earlier one left (empty without either). */
  cachedTools(): Tool[] {
    return this.tools ?? this.connection.options.seedTools ?? [];
  }

  /** The client capabilities offered to the server (sorted names), once connected: its tools may depend on them. */
  capabilitySet(): string | undefined {
    return this.connection.capabilitySet;
  }

  /** Whether this process has listed the server's tools (a seed is only a guess). */
  listedLive(): boolean {
    return this.tools !== undefined;
  }

  /**
   * One tools/call to the server, on whichever path it is sent (the SDK client's, or the hot
   * path's forwarder): its span, whose context the server gets in _meta.traceparent (the parent
   * of the server's work), its place among the calls in flight, and its answer, a result checked
   * for shape or the one error a failure becomes. Ended once.
   */
  private sending(name: string, trace: UpstreamTrace | undefined, related: RequestId | undefined) {
    let span = trace?.child('tools/call', name, this.name);
    let release: (() => void) | undefined = this.begin(related);
    const end = (failure?: string) => {
      release?.();
      release = undefined;
      span?.end(failure);
      span = undefined;
    };
    return {
      traceparent: span?.traceparent,
      /** What the call ended with: the server's result, or how it failed (a timeout says which). */
      answer: (
        outcome: { result: unknown } | { error: { message: string; code?: number }; timeout?: TimeoutKind; cause?: unknown },
      ): CallToolResult | ToolError => {
        const answer =
          'result' in outcome
            ? ((m) => (m ? malformedResult(this.name, name, m) : (outcome.result as CallToolResult)))(malformedCallResult(outcome.result))
            : (outcome.cause !== undefined && this.connection.authFailure(outcome.cause)) || this.callFailure(name, outcome.error, outcome.timeout);
        end(answer instanceof Error ? answer.message : undefined);
        return answer;
      },
      /** The client cancelled it, or the server's protocol error goes to the client as it is. */
      end,
    };
  }

  async call({ name, args, signal, progress: onprogress, related, modern, trace }: UpstreamCall): Promise<CallToolResult> {
    const client = await this.connection.connectOrUnavailable();
    const call = this.sending(name, trace, related);
    // Between 2026-07-28 peers an input_required result goes back to the client as it is, and the
    // client's retry comes through with its answers (MRTR needs no state here).
    const era = client.getProtocolEra();
    const relayed = modern && era === 'modern' ? modernParams(modern, this.connection.options.config) : undefined;
    const params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> } = { name, arguments: args ?? {}, ...relayed };
    if (call.traceparent) params._meta = { ...params._meta, traceparent: call.traceparent };
    // Progress off the transport, in order (RawForwarder.tapProgress), always asked for: it keeps the call alive.
    const bridged = modern !== undefined && era === 'legacy';
    const alive = new ProgressTimeout(this.timeoutMs, this.connection.maxTotalMs);
    const tap = !(bridged && modern.requestState !== undefined) ? this.connection.forwarder.tapProgress(alive.relay(onprogress)) : undefined;
    if (tap) params._meta = { ...params._meta, progressToken: tap.token };
    const leg = bridged && tap; // outlives this request: its own silence ends it, not the client's signal
    const options = {
      // A bridged call's legs are sent with signals of their own (send-call.ts bridged), never this
      // one: the client's signal is not joined to the timeout's for it (an AbortSignal.any a call).
      ...alive.options(bridged ? undefined : signal),
      ...(onprogress && !tap ? { onprogress } : {}),
      ...(relayed ? { allowInputRequired: true } : {}),
      ...(leg ? { legSignal: alive.signal, settled: () => (tap.end(), alive.stop()) } : {}),
    };
    // The server's own definition: its x-mcp-header parameters make a 2026 call's Mcp-Param-* headers.
    const tool = era === 'modern' ? this.tools?.find((t) => t.name === name) : undefined;
    let answer: CallToolResult | ToolError;
    try {
      answer = call.answer({ result: await sendToolCall(client, params, options, { modern, tool, bridge: this.bridge, cancelled: signal }) });
    } catch (error) {
      const timeout = alive.fired && !signal?.aborted ? alive.fired : undefined;
      // A 2026-07-28 client gets the server's protocol error as it is: its codes (-32021 for a
      // capability the client lacks, -32602 for tampered request state) are the client's to act on.
      if (!timeout && modern && error instanceof ProtocolError) throw (call.end(error.message), error);
      answer = call.answer(timeout ? { error: alive.error(timeout), timeout } : { error: error as Error & { code?: number } });
    } finally {
      if (!leg) {
        alive.stop();
        tap?.end();
      }
    }
    if (answer instanceof Error) throw answer;
    return answer;
  }

  /** True when a call can go straight to the connected transport (forward). */
  get ready(): boolean {
    // A 2026-07-28 request needs the SDK's envelope and headers, so it never skips the client.
    return this.connection.state === 'ready' && this.connection.forwarder.attached && this.connection.client?.getProtocolEra() !== 'modern';
  }

  /**
   * The hot path (./raw-forwarder.ts): a tools/call sent on the connected transport as is, with
   * the same bookkeeping and timeout as call; its progress goes to `progress`, its outcome to
   * `done` (a result, or the error the ordinary path gives). Returns a function that cancels.
   */
  forward(params: Record<string, unknown>, done: (result: CallToolResult | ToolError) => void, how: ForwardHow = {}): () => void {
    const call = this.sending(String(params.name), how.trace, how.related);
    const sent = call.traceparent ? { ...params, _meta: { ...(params._meta as Record<string, unknown> | undefined), traceparent: call.traceparent } } : params;
    const cancel = this.connection.forwarder.forward('tools/call', sent, {
      timeoutMs: this.timeoutMs,
      maxTotalMs: this.connection.maxTotalMs,
      ...(how.progress ? { progress: how.progress } : {}),
      done: (outcome) =>
        done(
          call.answer(
            'result' in outcome
              ? outcome
              : { ...outcome, ...(outcome.error.code === REQUEST_TIMEOUT ? { timeout: outcome.error.total ? 'total' : 'idle' } : {}) },
          ),
        ),
    });
    return () => {
      call.end('cancelled');
      cancel();
    };
  }

  /** The one error a failed tools/call becomes, on either path. */
  private callFailure(tool: string, error: { message: string; code?: number }, timeout?: 'idle' | 'total'): ToolError {
    const auth = this.connection.authFailure(error);
    if (auth) return auth;
    if (this.connection.state !== 'ready') return this.connection.unavailable();
    return requestFailure(this.name, tool, error, this.timeoutMs, timeout);
  }

  /** A new SDK client's handlers: what the server asks and tells. */
  private setUp(client: Client, offered: ClientCapabilities): void {
    routeServerRequests(client, offered, {
      ...(this.connection.options.clientEra === 'modern' ? { bridge: this.bridge } : {}),
      ...(this.connection.options.downstream ? { downstream: this.connection.options.downstream } : {}),
      related: () => this.heard.oldest(),
    });
    this.heard.hear(client);
    client.setNotificationHandler('notifications/tools/list_changed', async () => {
      await this.refreshTools(client).catch((error) => this.connection.options.logger.warn(`${this.name}: tools refresh failed: ${(error as Error).message}`));
      this.heard.toolsChanged.emit();
    });
  }

  private async refreshTools(client: Client): Promise<Tool[]> {
    this.tools = await this.readThrough.paged((cursor) =>
      client.listTools(cursor ? { cursor } : undefined, { timeout: this.timeoutMs }).then((r) => ({ items: r.tools, next: r.nextCursor })),
    );
    this.connection.options.listed?.(this.tools);
    return this.tools;
  }
}
